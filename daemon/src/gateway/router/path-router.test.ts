import { describe, expect, it } from 'vitest';
import { joinPaths, parsePathPattern, patternKey } from './path-pattern.js';
import { PathRouter } from './path-router.js';

function router(...patterns: string[]): PathRouter<string> {
  const r = new PathRouter<string>();
  for (const p of patterns) r.add(parsePathPattern(p), p);
  return r;
}

const matched = (r: PathRouter<string>, path: string) => r.match(path)?.value ?? null;

describe('PathRouter', () => {
  it('prefers static over {param} over /** at each segment, left to right', () => {
    const r = router('/a/b/c', '/a/{x}/c', '/a/**', '/a/b/**', '/**');
    expect(matched(r, '/a/b/c')).toBe('/a/b/c');
    expect(matched(r, '/a/z/c')).toBe('/a/{x}/c');
    expect(matched(r, '/a/b/d')).toBe('/a/b/**');
    expect(matched(r, '/a/z/d')).toBe('/a/**');
    expect(matched(r, '/q')).toBe('/**');
  });

  it('falls back to a less specific branch when the specific one leads nowhere', () => {
    const r = router('/users/me/settings', '/users/{id}/posts');
    expect(matched(r, '/users/me/posts')).toBe('/users/{id}/posts');
    expect(r.match('/users/me/posts')?.params).toEqual({ id: 'me' });
  });

  it('gives percent-decoded parameters and the raw rest of a wildcard', () => {
    const r = router('/files/{name}/raw', '/static/**');
    expect(r.match('/files/a%20b/raw')?.params).toEqual({ name: 'a b' });
    expect(r.match('/static/css/site.css')).toMatchObject({ value: '/static/**', rest: 'css/site.css' });
    expect(r.match('/static')).toMatchObject({ value: '/static/**', rest: '' });
    expect(r.match('/static/')).toMatchObject({ value: '/static/**', rest: '' });
  });

  it('routes "/a/" as "/a", as the peer, and does not let {param} match an empty segment', () => {
    const r = router('/a', '/users/{id}', '/**');
    expect(matched(r, '/a')).toBe('/a');
    // Not the catch-all: a protected "/admin" must not be reached as "/admin/" through "/**".
    expect(matched(r, '/a/')).toBe('/a');
    expect(matched(r, '/a//')).toBe('/a');
    expect(matched(r, '/users/')).toBe('/**');
    expect(matched(router('/users/{id}'), '/users/')).toBeNull();
    expect(matched(router('/a/'), '/a')).toBe('/a/');
    expect(matched(router('/a/'), '/a/')).toBe('/a/');
    expect(() => router('/a', '/a/')).toThrow('path pattern "/a/" routes the same paths as "/a"');
  });

  it('lets a pattern that ends in a parameter take a trailing slash, as the peer does', () => {
    const r = router('/p/{x}', '/p/{x}/q/{y}', '/s/{x}/static');
    expect(r.match('/p/a/')).toMatchObject({ value: '/p/{x}', params: { x: 'a' } });
    expect(r.match('/p/a/q/b/')).toMatchObject({ value: '/p/{x}/q/{y}', params: { x: 'a', y: 'b' } });
    expect(matched(r, '/s/a/static/')).toBe('/s/{x}/static');
    expect(matched(r, '/p/')).toBeNull();
    expect(matched(r, '/p//')).toBeNull();
    expect(matched(r, '/p//q/b')).toBeNull();
  });

  it('routes on the decoded path, as the peer: encoded letters and slashes are what they stand for', () => {
    const r = router('/admin', '/admin/users/{id}', '/files/{name}', '/caf\u00e9', '/**');
    for (const path of ['/%61dmin', '/%61%64%6D%69%6E', '/admin%2F', '/admin%2f%2F']) expect(matched(r, path), path).toBe('/admin');
    expect(r.match('/admin%2Fusers%2F7')).toMatchObject({ value: '/admin/users/{id}', params: { id: '7' } });
    expect(r.match('/admin/users/%37%20x')).toMatchObject({ value: '/admin/users/{id}', params: { id: '7 x' } });
    expect(matched(r, '/caf%C3%A9')).toBe('/caf\u00e9');
    // A parameter is one decoded segment: an encoded slash ends it, as a slash does.
    expect(matched(r, '/files/a%2Fb')).toBe('/**');
    expect(r.match('/files/a%20b')).toMatchObject({ value: '/files/{name}', params: { name: 'a b' } });
    // The wildcard's rest is as sent.
    expect(r.match('/x/%61%2Fb/')).toMatchObject({ value: '/**', rest: 'x/%61%2Fb/' });
    expect(router('/s/**').match('/s%2Fa%2Fb')).toMatchObject({ value: '/s/**', rest: 'a%2Fb' });
  });

  it('gives a route to a path and to its decoded form alike', () => {
    const r = router('/a', '/a/b', '/a/{x}', '/a/{x}/c/**', '/b/**', '/');
    const encode = (text: string, pick: number): string => [...text].map((ch, i) => ((pick >> i % 8) & 1 && ch !== '%' ? `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}` : ch)).join('');
    for (const path of ['/', '/a', '/a/', '/a/b', '/a/bb', '/a/b/c/d', '/b', '/b/q/', '/c', '/a/x/c']) {
      for (let pick = 0; pick < 256; pick += 7) {
        const sent = encode(path, pick);
        expect([sent, r.match(sent)?.value ?? null]).toEqual([sent, r.match(path)?.value ?? null]);
      }
    }
  });

  it('leaves empty segments out, as nginx merges slashes, and gives a wildcard the rest as sent', () => {
    const r = router('/admin', '/admin/{id}', '/files/**', '/**');
    for (const path of ['//admin', '/admin//', '///admin', '//%61dmin%2F']) expect(matched(r, path), path).toBe('/admin');
    expect(r.match('/admin//7')).toMatchObject({ value: '/admin/{id}', params: { id: '7' } });
    expect(r.match('/files//a//b/')).toMatchObject({ value: '/files/**', rest: '/a//b/' });
    expect(r.match('//x')).toMatchObject({ value: '/**', rest: '/x' });
  });

  it('gives a wildcard the rest as sent, trailing slashes included', () => {
    const r = router('/static/**', '/static/exact');
    expect(r.match('/static/css/')).toMatchObject({ value: '/static/**', rest: 'css/' });
    expect(r.match('/static/css//')).toMatchObject({ value: '/static/**', rest: 'css//' });
    expect(r.match('/static/')).toMatchObject({ value: '/static/**', rest: '' });
    expect(r.match('/static/exact/')).toMatchObject({ value: '/static/exact', rest: null });
  });

  it('routes the root only to "/" or a root wildcard', () => {
    expect(matched(router('/'), '/')).toBe('/');
    expect(matched(router('/', '/**'), '/x')).toBe('/**');
    expect(matched(router('/x'), '/')).toBeNull();
  });

  it('refuses a second pattern that routes the same paths, whatever its parameter names', () => {
    const r = router('/items/{id}');
    expect(() => r.add(parsePathPattern('/items/{itemId}'), 'dup')).toThrow('path pattern "/items/{itemId}" routes the same paths as "/items/{id}"');
    expect(patternKey(parsePathPattern('/items/{id}/**'))).toBe(patternKey(parsePathPattern('/items/{x}/**')));
  });

  it('keeps the parameter names of each pattern even when two share a handler', () => {
    const r = new PathRouter<string>();
    r.add(parsePathPattern('/a/{one}'), 'same');
    r.add(parsePathPattern('/b/{two}'), 'same');
    expect(r.match('/a/1')?.params).toEqual({ one: '1' });
    expect(r.match('/b/2')?.params).toEqual({ two: '2' });
  });
});

describe('parsePathPattern', () => {
  it.each([
    ['items', /must start with "\/"/],
    ['/a/**/b', /"\*\*" may only be the whole last segment/],
    ['/a/x**', /"\*\*" may only be the whole last segment/],
    ['/a/{id}.json', /a parameter must be a whole segment/],
    ['/a/{id}/{id}', /the parameter \{id\} appears twice/],
    ['/a//b', /has an empty segment/],
  ])('refuses %s with a message that says how to write it', (source, message) => {
    expect(() => parsePathPattern(source)).toThrow(message);
  });
});

describe('joinPaths', () => {
  it.each([
    [['/api', '/v1/', '/items'], '/api/v1/items'],
    [[undefined, '/api', '/'], '/api'],
    [['/', '/'], '/'],
    [['/base', '/dir/'], '/base/dir/'],
    [['/base/', '/**'], '/base/**'],
  ])('%j is %s', (parts, joined) => expect(joinPaths(...parts)).toBe(joined));
});
