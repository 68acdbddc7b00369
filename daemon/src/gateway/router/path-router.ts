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

  /** The route for a URL path (as sent, percent-encoded), or null. */
  match(path: string): RouteMatch<T> | null {
    const segments = path.split('/').slice(1);
    if (segments.length === 1 && segments[0] === '') segments.pop();
    let found = this.#walk(this.#root, segments, 0, []);
    // As the peer: a pattern ending in a parameter also takes a trailing slash ("/p/{x}" matches "/p/a/"); static paths stay apart.
    if (!found && segments.length > 1 && segments.at(-1) === '') {
      const trimmed = this.#walk(this.#root, segments.slice(0, -1), 0, []);
      if (trimmed && trimmed.rest === null && trimmed.route.pattern.segments.at(-1)?.kind === 'param') found = trimmed;
    }
    if (!found) return null;
    const params: Record<string, string> = {};
    found.route.names.forEach((name, i) => (params[name] = decodeSegment(found.captured[i] ?? '')));
    return { value: found.route.value, pattern: found.route.pattern, params, rest: found.rest };
  }

  #walk(at: Node<T>, segments: string[], i: number, captured: string[]): { route: Terminal<T>; captured: string[]; rest: string | null } | null {
    if (i === segments.length) {
      if (at.exact) return { route: at.exact, captured: [...captured], rest: null };
      if (at.wildcard) return { route: at.wildcard, captured: [...captured], rest: '' };
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
    if (at.wildcard) return { route: at.wildcard, captured: [...captured], rest: segments.slice(i).join('/') };
    return null;
  }
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
