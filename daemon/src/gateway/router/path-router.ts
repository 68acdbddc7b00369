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
   * The route for a URL path (as sent, percent-encoded), or null. As the peer, trailing slashes
   * do not count: `/a/` and `/a//` take the route of `/a` (so a protected `/admin` is not
   * bypassed through `/admin/` to a catch-all that a backend would serve as `/admin`). What a
   * wildcard matched keeps them (`/static/css/` → `css/`).
   */
  match(path: string): RouteMatch<T> | null {
    const all = path.split('/').slice(1);
    let end = all.length;
    while (end > 0 && all[end - 1] === '') end--;
    const segments = end === all.length ? all : all.slice(0, end);
    const found = this.#walk(this.#root, segments, 0, []);
    if (!found) return null;
    const params: Record<string, string> = {};
    found.route.names.forEach((name, i) => (params[name] = decodeSegment(found.captured[i] ?? '')));
    return { value: found.route.value, pattern: found.route.pattern, params, rest: found.restAt === null ? null : all.slice(found.restAt).join('/') };
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

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
