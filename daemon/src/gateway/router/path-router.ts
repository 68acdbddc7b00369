import type { PathPattern } from './path-pattern.js';

export interface RouteMatch<T> {
  value: T;
  pattern: PathPattern;
  /** `{name}` values, percent-decoded. */
  params: Record<string, string>;
  /** What `/**` matched, without a leading slash ("" for none); null when the pattern has no wildcard. */
  rest: string | null;
}

interface Terminal<T> {
  value: T;
  pattern: PathPattern;
  /** Parameter names in segment order. */
  names: string[];
}

interface Node<T> {
  statics: Map<string, Node<T>>;
  param: Node<T> | null;
  exact: Terminal<T> | null;
  wildcard: Terminal<T> | null;
}

const node = <T>(): Node<T> => ({ statics: new Map(), param: null, exact: null, wildcard: null });

/**
 * Most-specific-match routing: at each segment a static match beats `{param}`, which beats
 * `/**`; when a more specific branch leads nowhere, the next one is tried. Patterns are
 * compared left to right, so `/a/{x}/c` beats `/a/**` for `/a/b/c`, and `/a/b/**` beats
 * `/a/{x}/c` for `/a/b/c` (the static second segment decides first).
 */
export class PathRouter<T> {
  readonly #root: Node<T> = node();

  /** Adds a route; throws when an equivalent pattern (same shape, other parameter names) is there. */
  add(pattern: PathPattern, value: T): void {
    let current = this.#root;
    const names: string[] = [];
    for (const segment of pattern.segments) {
      if (segment.kind === 'static') {
        let next = current.statics.get(segment.text);
        if (!next) current.statics.set(segment.text, (next = node()));
        current = next;
      } else {
        current.param ??= node();
        names.push(segment.name);
        current = current.param;
      }
    }
    const slot = pattern.wildcard ? 'wildcard' : 'exact';
    const existing = current[slot];
    if (existing) throw new Error(`path pattern "${pattern.source}" routes the same paths as "${existing.pattern.source}"`);
    current[slot] = { value, pattern, names };
  }

  /**
   * The route for a URL path (as sent, percent-encoded), or null. Matched so that a backend
   * that normalises the path serves the route whose access controls ran: percent-encoding is
   * decoded before segments are compared (`/%61dmin` is `/admin`, as the peer matches Go's
   * decoded `URL.Path`), an encoded slash separates segments as `/` does (`/a%2Fb` is `/a/b`),
   * and empty segments do not count (`/admin/`, `/admin//` and `//admin` are `/admin`, as
   * nginx merges slashes; the peer drops trailing ones). Parameters are the decoded segments;
   * what a wildcard matched is the rest as sent, encoding and slashes kept.
   */
  match(path: string): RouteMatch<T> | null {
    const split = splitPath(path);
    const { segments, kept } = comparedSegments(split, path);
    const found = this.#walk(this.#root, segments, 0, []);
    if (!found) return null;
    const params: Record<string, string> = {};
    found.route.names.forEach((name, i) => (params[name] = found.captured[i] ?? ''));
    let rest: string | null = null;
    if (found.restAt !== null) rest = restFrom(split, kept === null ? found.restAt : found.restAt === 0 ? 0 : kept[found.restAt - 1]! + 1);
    return { value: found.route.value, pattern: found.route.pattern, params, rest };
  }

  #walk(at: Node<T>, segments: string[], i: number, captured: string[]): { route: Terminal<T>; captured: string[]; restAt: number | null } | null {
    if (i === segments.length) {
      if (at.exact) return { route: at.exact, captured: [...captured], restAt: null };
      if (at.wildcard) return { route: at.wildcard, captured: [...captured], restAt: i };
      return null;
    }
    const segment = segments[i]!;
    const viaStatic = at.statics.get(segment);
    if (viaStatic) {
      const found = this.#walk(viaStatic, segments, i + 1, captured);
      if (found) return found;
    }
    // A parameter stands for a non-empty segment: "/users/" is not "/users/{id}".
    if (at.param && segment !== '') {
      captured.push(segment);
      const found = this.#walk(at.param, segments, i + 1, captured);
      captured.pop();
      if (found) return found;
    }
    if (at.wildcard) return { route: at.wildcard, captured: [...captured], restAt: i };
    return null;
  }
}

/** A path's segments as sent, each with the separator before it (`/`, or `%2F` in a path that has a percent sign). */
interface SplitPath {
  readonly pieces: string[];
  readonly separators: string[] | null;
  /** The path has a percent sign: its segments are decoded to be compared. */
  readonly decoded: boolean;
}

const ENCODED_SLASH = /(\/|%2[fF])/;

function splitPath(path: string): SplitPath {
  if (!path.includes('%')) return { pieces: path.split('/').slice(1), separators: null, decoded: false };
  const parts = path.split(ENCODED_SLASH);
  const pieces: string[] = [];
  const separators: string[] = [];
  // parts: [before the first separator (""), separator, piece, separator, piece, ...]
  for (let i = 1; i < parts.length; i += 2) {
    separators.push(parts[i]!);
    pieces.push(parts[i + 1] ?? '');
  }
  return { pieces, separators, decoded: true };
}

/**
 * The segments routing compares: decoded, empty ones left out; `kept` gives the index in
 * `pieces` of each, or is null when they are the pieces themselves (less a trailing empty one).
 */
function comparedSegments(split: SplitPath, path: string): { segments: string[]; kept: number[] | null } {
  const { pieces } = split;
  if (!split.decoded && !path.includes('//')) return { segments: pieces.at(-1) === '' ? pieces.slice(0, -1) : pieces, kept: null };
  const segments: string[] = [];
  const kept: number[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (piece === '') continue;
    segments.push(split.decoded ? decodeSegment(piece) : piece);
    kept.push(i);
  }
  return { segments, kept };
}

/** What a wildcard matched from segment `at` on, as sent. */
function restFrom({ pieces, separators }: SplitPath, at: number): string {
  if (separators === null) return pieces.slice(at).join('/');
  let rest = pieces[at] ?? '';
  for (let i = at + 1; i < pieces.length; i++) rest += separators[i]! + pieces[i]!;
  return rest;
}

function decodeSegment(raw: string): string {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The path as the router compares it (decoded, empty segments left out), for the prefix checks made beside it. */
export function routingPath(path: string): string {
  if (!path.includes('%') && !path.includes('//')) return path;
  return `/${comparedSegments(splitPath(path), path).segments.join('/')}`;
}
