/**
 * Endpoint path patterns: `/users/{id}/posts`, with `{name}` standing for one whole segment
 * and a final `/**` for any rest (zero or more segments).
 */
export type Segment = { kind: 'static'; text: string } | { kind: 'param'; name: string };

export interface PathPattern {
  /** As written (after base_path joining). */
  source: string;
  segments: Segment[];
  /** Ends in `/**`. */
  wildcard: boolean;
}

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_-]*)\}$/;

/** Parses a pattern; throws an Error whose message says what is wrong and how to write it. */
export function parsePathPattern(source: string): PathPattern {
  if (!source.startsWith('/')) throw new Error(`path pattern "${source}" must start with "/"`);
  const parts = source.split('/').slice(1);
  let wildcard = false;
  if (parts.at(-1) === '**') {
    wildcard = true;
    parts.pop();
  }
  const segments: Segment[] = [];
  const names = new Set<string>();
  parts.forEach((part, i) => {
    if (part.includes('**')) throw new Error(`path pattern "${source}": "**" may only be the whole last segment, as in "/files/**"`);
    const param = PARAM.exec(part);
    if (param) {
      const name = param[1]!;
      if (names.has(name)) throw new Error(`path pattern "${source}": the parameter {${name}} appears twice`);
      names.add(name);
      segments.push({ kind: 'param', name });
      return;
    }
    if (part.includes('{') || part.includes('}')) {
      throw new Error(`path pattern "${source}": a parameter must be a whole segment such as "/{id}"; "${part}" is not`);
    }
    // An empty segment is only allowed as the trailing slash of "/a/", which routes as "/a" (as the peer).
    if (part === '' && i !== parts.length - 1) throw new Error(`path pattern "${source}" has an empty segment ("//")`);
    if (part !== '') segments.push({ kind: 'static', text: part });
  });
  return { source, segments, wildcard };
}

/** The pattern with parameter names erased: two patterns with the same key route the same paths. */
export function patternKey(pattern: PathPattern): string {
  const body = pattern.segments.map((s) => (s.kind === 'param' ? '{}' : s.text)).join('/');
  return `/${body}${pattern.wildcard ? (body ? '/**' : '**') : ''}`;
}

/** Joins base paths and a pattern the way the gateway nests them: no doubled or missing slashes. */
export function joinPaths(...parts: ReadonlyArray<string | undefined>): string {
  const pieces = parts.filter((p): p is string => p !== undefined && p !== '' && p !== '/');
  if (pieces.length === 0) return '/';
  const last = pieces[pieces.length - 1]!;
  const joined = pieces.map((p) => p.replace(/^\/+|\/+$/g, '')).filter((p) => p !== '').join('/');
  return `/${joined}${last.endsWith('/') && joined !== '' ? '/' : ''}`;
}
