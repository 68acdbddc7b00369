import { describe, expect, it } from 'vitest';
import type { BackendConfig } from '../config/model.js';
import type { EvalScope } from '../eval/request-scope.js';
import { upstreamUrl } from './upstream-url.js';

// Only static values here: the scope is never read.
const scope = {} as EvalScope;

function backend(origin: string | null, extra: { path?: string; pathPrefix?: string } = {}): BackendConfig {
  const dyn = (value: string | undefined) => (value === undefined ? null : { kind: 'static' as const, value });
  return { name: 'b', origin, path: dyn(extra.path), pathPrefix: dyn(extra.pathPrefix) } as unknown as BackendConfig;
}

function build(input: { origin?: string | null; url?: string | null; client?: string | null; wildcard?: string | null; path?: string; pathPrefix?: string }): string {
  return upstreamUrl({
    backend: backend(input.origin === undefined ? 'http://127.0.0.1:9001' : input.origin, input),
    url: input.url ?? null,
    client: input.client === null ? null : new URL(input.client ?? 'http://front.example/a/b?x=1'),
    wildcard: input.wildcard ?? null,
    scope,
    block: 'proxy "default"',
  }).href;
}

describe('upstreamUrl', () => {
  it("forwards the client's path and query to the backend's origin", () => {
    expect(build({})).toBe('http://127.0.0.1:9001/a/b?x=1');
    expect(build({ client: 'http://front.example/' })).toBe('http://127.0.0.1:9001/');
  });

  it("takes a url's path and sets its query parameters over the client's", () => {
    expect(build({ url: '/users/7?x=2&y=3' })).toBe('http://127.0.0.1:9001/users/7?x=2&y=3');
    expect(build({ url: '/users/7' })).toBe('http://127.0.0.1:9001/users/7?x=1');
    expect(build({ url: 'http://127.0.0.1:9001/users/7?y=3', client: 'http://front.example/a?x=1&y=1' })).toBe('http://127.0.0.1:9001/users/7?x=1&y=3');
    expect(build({ url: '/users/7', client: null })).toBe('http://127.0.0.1:9001/users/7');
  });

  it("forwards the client's query as it came, and keeps its other pairs as written under a url's parameters", () => {
    const raw = '?a=b%20c&y=~&flag&z=a+b&u=%C3%BC&s=%3B&e=';
    expect(build({ client: `http://front.example/a${raw}` })).toBe(`http://127.0.0.1:9001/a${raw}`);
    expect(build({ url: '/users/7', client: `http://front.example/a${raw}` })).toBe(`http://127.0.0.1:9001/users/7${raw}`);
    expect(build({ path: '/p', client: `http://front.example/a${raw}` })).toBe(`http://127.0.0.1:9001/p${raw}`);
    // Names compare decoded (`a+b` and `a%20b` are one name); the url's pairs come last.
    expect(build({ url: '/u?z=1&a%20b=2', client: 'http://front.example/a?a=b%20c&z=a+b&z=2&flag&a+b=0' })).toBe('http://127.0.0.1:9001/u?a=b%20c&flag&z=1&a%20b=2');
    expect(build({ url: '/u?flag=on', client: 'http://front.example/a?flag&&x=%ZZ' })).toBe('http://127.0.0.1:9001/u?x=%ZZ&flag=on');
    // A `?` inside the query is part of a name, as URLSearchParams reads the whole query.
    expect(build({ url: '/u?b=1', client: 'http://front.example/a?a=1&?b=2&b=3' })).toBe('http://127.0.0.1:9001/u?a=1&?b=2&b=1');
  });

  it("sends neither a url's credentials nor its fragment", () => {
    expect(build({ url: 'http://user:secret@127.0.0.1:9001/users/7#part' })).toBe('http://127.0.0.1:9001/users/7?x=1');
    expect(build({ url: '/users/7?y=1#part', client: null })).toBe('http://127.0.0.1:9001/users/7?y=1');
  });

  it("takes an absolute url's origin when the backend has none, and refuses another origin than the backend's", () => {
    expect(build({ origin: null, url: 'https://api.example/v1' })).toBe('https://api.example/v1?x=1');
    expect(build({ origin: 'http://127.0.0.1:9001', url: 'HTTP://127.0.0.1:9001/v1' })).toBe('http://127.0.0.1:9001/v1?x=1');
    expect(() => build({ url: 'http://127.0.0.1:9002/v1' })).toThrow(/must equal the origin of backend "b"/);
    expect(() => build({ url: 'ftp://127.0.0.1:9001/v1' })).toThrow(/must use http or https/);
    expect(() => build({ origin: null, url: '/v1' })).toThrow(/has no origin and the block gives no absolute url/);
  });

  it("joins the route's wildcard, the backend's path and its prefix", () => {
    expect(build({ url: '/api/**', wildcard: 'c/d' })).toBe('http://127.0.0.1:9001/api/c/d?x=1');
    expect(build({ url: '/api/**', wildcard: null })).toBe('http://127.0.0.1:9001/api/?x=1');
    expect(build({ path: '/p/**', wildcard: 'z' })).toBe('http://127.0.0.1:9001/p/z?x=1');
    expect(build({ url: '/users/7', pathPrefix: '/v2/' })).toBe('http://127.0.0.1:9001/v2/users/7?x=1');
    expect(build({ url: 'http://127.0.0.1:9001/users/7', path: '/other' })).toBe('http://127.0.0.1:9001/other?x=1');
    expect(() => build({ url: '/api/**', wildcard: 'a/../../etc' })).toThrow(/dot segment/);
  });
});
