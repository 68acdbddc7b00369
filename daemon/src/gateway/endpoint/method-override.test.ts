// Method overrides (X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override, `_method`): a
// backend framework that honours them runs the named method, so `allowed_methods` and a
// per-method `beta_required_permission` check the named method as well as the request's own.
// The same endpoints on the plain proxy path and on the general path answer alike.
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import type { Dyn, Permission } from '../config/model.js';
import type { GatewayLogRecord } from '../contracts.js';
import { formOverrideMatters } from '../http/method-override.js';
import { startBackend } from './testing/endpoint-gateway.js';
import { permissionDefinitions, plainAndGeneralApis, sendBoth, tokToken } from './testing/guarded-backend.js';

/** `/perm/**`: readers may GET, writers may also POST; `/form/**`: GET and POST, no permission; `/ro/**`: only GET. */
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
    endpoint "/form/**" {
      allowed_methods          = ["GET", "POST"]
      beta_required_permission = ""
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
    // The 405s an override caused are told to the consoles as denials by the method check; other 405s and the 400s are not.
    const overrideDenials = gw.denials.filter((d) => d.type === 'method_override').map((d) => `${d.method} ${d.path}`);
    const by405 = (prefix: string) => cases.filter((_, i) => plain[i]!.status === 405).map(([, method, path]) => `${method} ${prefix}${path.split('?')[0]!}`);
    expect(overrideDenials.sort()).toEqual([...by405('/plain'), ...by405('/general')].sort());
  });

  it('checks a _method field in a urlencoded POST body where a method could be refused, and forwards the body as sent', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin) });
    const reader = await tokToken({ sub: 'ada', perms: ['read'] });
    const writer = await tokToken({ sub: 'bob', perms: ['read', 'write'] });
    const form = 'application/x-www-form-urlencoded';
    type FormCase = [name: string, path: string, contentType: string, body: string, token?: string];
    const cases: FormCase[] = [
      ['writer, a plain form', '/perm/x', form, 'name=n&note=a+b', writer],
      ['writer, _method=DELETE', '/perm/x', form, 'name=n&_method=DELETE', writer],
      ['writer, %5Fmethod=delete', '/perm/x', `${form}; charset=utf-8`, '%5Fmethod=delete&name=n', writer],
      ['writer, _method=GET (read granted)', '/perm/x', form, '_method=GET', writer],
      ['reader, _method=GET (POST needs write)', '/perm/x', form, '_method=GET', reader],
      ['no token, _method=DELETE', '/perm/x', form, '_method=DELETE'],
      ['allowed_methods, _method=PUT', '/form/x', form, 'a=1&_method=PUT'],
      ['allowed_methods, _method=get', '/form/x', form, 'a=1&_method=get'],
      ['allowed_methods, an empty _method', '/form/x', form, '_method=&a=1'],
      ['allowed_methods, two _method fields', '/form/x', form, '_method=GET&_method=DELETE'],
      ['not a form: text/plain', '/form/x', 'text/plain', '_method=PUT'],
      ['a field only resembling _method', '/form/x', form, '__method=PUT&_methods=PUT&x_method=PUT'],
    ];
    const seen =
      (prefix: string) =>
      async ([, path, contentType, body, token]: FormCase) => {
        const headers: Record<string, string> = { 'content-type': contentType, ...(token === undefined ? {} : { 'x-token': token }) };
        const res = await fetch(gw.url(`${prefix}${path}`), { method: 'POST', headers, body });
        const text = await res.text();
        const echoed = text.includes('"method"') ? (JSON.parse(text) as { method: string; body: string }) : null;
        return { status: res.status, allow: res.headers.get('allow'), method: echoed?.method ?? null, body: echoed?.body ?? null };
      };
    const { plain, general } = await sendBoth(cases, seen);
    expect(plain).toEqual(general);
    expect(plain.map((r, i) => `${cases[i]![0]}: ${r.status}`)).toEqual([
      'writer, a plain form: 200',
      'writer, _method=DELETE: 405',
      'writer, %5Fmethod=delete: 405',
      'writer, _method=GET (read granted): 200',
      'reader, _method=GET (POST needs write): 403',
      'no token, _method=DELETE: 401',
      'allowed_methods, _method=PUT: 405',
      'allowed_methods, _method=get: 200',
      'allowed_methods, an empty _method: 400',
      'allowed_methods, two _method fields: 405',
      'not a form: text/plain: 200',
      'a field only resembling _method: 200',
    ]);
    expect(plain[1]?.allow).toBe('GET, POST');
    expect(plain[6]?.allow).toBe('GET, POST');
    // What went through reached the backend as a POST with the body byte for byte.
    for (const [i, r] of plain.entries()) {
      if (r.status === 200) expect(r, cases[i]![0]).toMatchObject({ method: 'POST', body: cases[i]![3] });
      else expect(r.method, cases[i]![0]).toBeNull();
    }
    const lines = accessLines(gw).filter((l: GatewayLogRecord) => String(l['url']).includes('/plain/'));
    expect(lines[1]).toMatchObject({ error_type: 'method_not_allowed', message: expect.stringContaining('DELETE (named by the _method form field) is not permitted by beta_required_permission') });
    expect(lines[6]).toMatchObject({ error_type: 'method_not_allowed', message: expect.stringContaining('PUT (named by the _method form field) is not allowed here') });
    expect(lines[8]).toMatchObject({ error_type: 'client_request', message: expect.stringContaining('the _method form field names no single HTTP method') });
    const overrideDenials = gw.denials.filter((d) => d.type === 'method_override' && d.path.startsWith('/plain/')).map((d) => d.path);
    expect(overrideDenials).toEqual(cases.filter((_, i) => plain[i]!.status === 405).map(([, path]) => `/plain${path}`));
  });
});

describe('where a form body is read for _method', () => {
  const all = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  const expr = { kind: 'expr', expr: {} } as unknown as Dyn<Permission>;
  it('only where a POST could name a method the endpoint refuses', () => {
    expect(formOverrideMatters(['GET'], null)).toBe(false);
    expect(formOverrideMatters(['GET', 'POST'], null)).toBe(true);
    expect(formOverrideMatters(all, null)).toBe(false);
    expect(formOverrideMatters(all, { kind: 'static', value: 'write' })).toBe(false);
    expect(formOverrideMatters(all, { kind: 'static', value: { POST: 'write' } })).toBe(true);
    expect(formOverrideMatters(all, expr)).toBe(true);
    expect(formOverrideMatters(['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], expr)).toBe(false);
  });
});
