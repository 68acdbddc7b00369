import { expect, test } from 'vitest';
import { rawResponseHeaders, withoutHopByHop } from './headers.js';

const raw = (...pairs: string[]): Buffer[] => pairs.map((text) => Buffer.from(text, 'latin1'));

test('names lower case, repeated names an array in arrival order, set-cookie always an array', () => {
  const headers = rawResponseHeaders(raw('Content-Type', 'text/plain', 'X-Tag', 'a', 'x-tag', 'b', 'X-TAG', 'c', 'Set-Cookie', 'one=1', 'Vary', 'Accept'));
  expect(headers).toEqual({ 'content-type': 'text/plain', 'x-tag': ['a', 'b', 'c'], 'set-cookie': ['one=1'], vary: 'Accept' });
  expect(rawResponseHeaders(raw('set-cookie', 'a=1', 'Set-Cookie', 'b=2'))['set-cookie']).toEqual(['a=1', 'b=2']);
});

test('hop-by-hop headers, Proxy-* headers and the headers Connection names are dropped', () => {
  const headers = rawResponseHeaders(
    raw('Connection', 'keep-alive, X-Private ,x-other', 'Keep-Alive', 'timeout=5', 'Transfer-Encoding', 'chunked', 'Proxy-Authenticate', 'Basic', 'Proxy-Status', 'x', 'X-Private', 'no', 'X-Other', 'no', 'Upgrade', 'h2c', 'Trailer', 'x', 'X-Kept', 'yes'),
  );
  expect(headers).toEqual({ 'x-kept': 'yes' });
});

test('Connection: keep-alive alone drops the Keep-Alive header; a second Connection line still names headers', () => {
  expect(rawResponseHeaders(raw('Connection', 'keep-alive', 'Keep-Alive', 'timeout=5', 'X-Kept', 'yes'))).toEqual({ 'x-kept': 'yes' });
  expect(rawResponseHeaders(raw('Connection', 'keep-alive', 'connection', 'X-Private', 'X-Private', 'no', 'X-Kept', 'yes'))).toEqual({ 'x-kept': 'yes' });
});

test('request headers that are already end-to-end are sent as given; any hop-by-hop, Proxy-*, upper-case or repeated header makes a clean copy', () => {
  const clean = { host: 'api.example', accept: 'application/json', 'x-forwarded-for': '10.0.0.1' };
  expect(withoutHopByHop(clean)).toBe(clean);
  for (const [extra, kept] of [
    [{ connection: 'x-private', 'x-private': '1' }, {}],
    [{ te: 'trailers' }, {}],
    [{ 'proxy-authorization': 'Basic eA==' }, {}],
    [{ 'X-Upper': 'u' }, { 'x-upper': 'u' }],
    [{ 'x-list': ['a', 'b'] }, { 'x-list': ['a', 'b'] }],
  ] as const) {
    const given = { ...clean, ...extra };
    const sent = withoutHopByHop(given);
    expect(sent).not.toBe(given);
    expect(sent).toEqual({ ...clean, ...kept });
  }
});

test('values are read as latin1, as undici reads them, so bytes above 0x7f survive the round trip to the client', () => {
  const value = Buffer.from([0x63, 0x61, 0x66, 0xe9]); // "café" in latin1
  const headers = rawResponseHeaders([Buffer.from('X-Name'), value]);
  expect(headers['x-name']).toBe('caf\u00e9');
  expect(Buffer.from(headers['x-name'] as string, 'latin1')).toEqual(value);
});

test('a header named __proto__ is dropped and never reaches the prototype', () => {
  const headers = rawResponseHeaders(raw('__proto__', 'x', 'X-Kept', 'yes'));
  expect(Object.getPrototypeOf(headers)).toBe(Object.prototype);
  expect(headers).toEqual({ 'x-kept': 'yes' });
});
