// Method overrides (X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override, `_method`): a
// backend framework that honours them runs the named method, so `allowed_methods` and a
// per-method `beta_required_permission` check the named method as well as the request's own.
// The same endpoints on the plain proxy path and on the general path answer alike.
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import type { GatewayLogRecord } from '../contracts.js';
import { startBackend } from './testing/endpoint-gateway.js';
import { permissionDefinitions, plainAndGeneralApis, sendBoth, tokToken } from './testing/guarded-backend.js';

/** `/perm/**`: readers may GET, writers may also POST; `/ro/**`: only GET, no permission. */
const ENDPOINTS = `
    endpoint "/perm/**" {
      access_control = ["tok"]
      beta_required_permission = {
        GET  = "read"
        POST = "write"
      }
      proxy {
        backend = "b"
      }
    }
    endpoint "/ro/**" {
      allowed_methods          = ["GET"]
      beta_required_permission = ""
      proxy {
        backend = "b"
      }
    }`;

function config(origin: string): string {
  return plainAndGeneralApis(ENDPOINTS) + permissionDefinitions(origin);
}

type Case = [name: string, method: string, path: string, headers: Record<string, string>];

describe('method overrides', () => {
  it('checks the method a request names by header or _method as its own method is checked', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin) });
    const reader = await tokToken({ sub: 'ada', perms: ['read'] });
    const writer = await tokToken({ sub: 'bob', perms: ['read', 'write'] });
    const cases: Case[] = [
      ['reader, plain GET', 'GET', '/perm/x', { 'x-token': reader }],
      ['reader, GET naming POST', 'GET', '/perm/x', { 'x-token': reader, 'x-http-method-override': 'POST' }],
      ['writer, GET naming POST', 'GET', '/perm/x', { 'x-token': writer, 'x-http-method-override': 'post' }],
      ['writer, POST naming DELETE', 'POST', '/perm/x', { 'x-token': writer, 'x-http-method': 'DELETE' }],
      ['writer, X-Method-Override DELETE', 'GET', '/perm/x', { 'x-token': writer, 'x-method-override': ' delete ' }],
      ['writer, _method=DELETE', 'POST', '/perm/x?_method=DELETE', { 'x-token': writer }],
      ['writer, %5Fmethod=DELETE', 'POST', '/perm/x?a=1&%5Fmethod=DELETE', { 'x-token': writer }],
      ['reader, naming its own method', 'GET', '/perm/x?_method=get', { 'x-token': reader, 'x-http-method-override': 'GET' }],
      ['a list of methods', 'GET', '/perm/x', { 'x-token': writer, 'x-http-method-override': 'GET, DELETE' }],
      ['an empty override', 'GET', '/perm/x', { 'x-token': writer, 'x-http-method-override': '' }],
      ['no token, naming DELETE', 'GET', '/perm/x', { 'x-http-method-override': 'DELETE' }],
      ['allowed_methods, naming PUT', 'GET', '/ro/x', { 'x-http-method-override': 'PUT' }],
      ['allowed_methods, naming GET', 'GET', '/ro/x', { 'x-http-method-override': 'GET' }],
      ['a parameter only resembling _method', 'GET', '/ro/x?__method=PUT&_methods=PUT', {}],
    ];
    const seen =
      (prefix: string) =>
      async ([, method, path, headers]: Case) => {
        const res = await fetch(gw.url(`${prefix}${path}`), { method, headers });
        const body = await res.text();
        return { status: res.status, allow: res.headers.get('allow'), error: res.headers.get('gateway-error'), reached: body.includes('"method"') };
      };
    const { plain, general } = await sendBoth(cases, seen);
    expect(plain).toEqual(general);
    expect(plain.map((r, i) => `${cases[i]![0]}: ${r.status}`)).toEqual([
      'reader, plain GET: 200',
      'reader, GET naming POST: 403',
      'writer, GET naming POST: 200',
      'writer, POST naming DELETE: 405',
      'writer, X-Method-Override DELETE: 405',
      'writer, _method=DELETE: 405',
      'writer, %5Fmethod=DELETE: 405',
      'reader, naming its own method: 200',
      'a list of methods: 400',
      'an empty override: 400',
      'no token, naming DELETE: 401',
      'allowed_methods, naming PUT: 405',
      'allowed_methods, naming GET: 200',
      'a parameter only resembling _method: 200',
    ]);
    expect(plain[3]?.allow).toBe('GET, POST');
    expect(plain[11]?.allow).toBe('GET');
    expect(plain[8]?.error).toBe('client request error');
    // Refused requests never reach the backend; allowed ones do, with the header as sent.
    expect(plain.map((r) => r.reached)).toEqual(plain.map((r) => r.status === 200));

    const lines = (prefix: string) =>
      accessLines(gw)
        .filter((l: GatewayLogRecord) => String(l['url']).includes(`${prefix}/`))
        .map((l) => ({ status: l['status'], errorType: l['error_type'] ?? null, message: String(l['message'] ?? '') }));
    expect(lines('/plain')).toEqual(lines('/general'));
    const plainLines = lines('/plain');
    expect(plainLines[1]).toMatchObject({ errorType: 'beta_insufficient_permissions', message: expect.stringContaining('"write" not granted') });
    expect(plainLines[3]).toMatchObject({ errorType: 'method_not_allowed', message: expect.stringContaining('DELETE (named by the x-http-method header)') });
    expect(plainLines[6]).toMatchObject({ message: expect.stringContaining('the _method query parameter') });
    expect(plainLines[8]).toMatchObject({ errorType: 'client_request', message: expect.stringContaining('names no single HTTP method') });
    expect(plainLines[11]).toMatchObject({ errorType: 'method_not_allowed', message: expect.stringContaining('PUT (named by the x-http-method-override header) is not allowed here') });
  });
});
