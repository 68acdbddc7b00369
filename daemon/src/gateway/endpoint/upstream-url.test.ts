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
