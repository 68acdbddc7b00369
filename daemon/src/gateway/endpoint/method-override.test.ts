// Method overrides (X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override, `_method`): a
// backend framework that honours them runs the named method, so `allowed_methods` and a
// per-method `beta_required_permission` check the named method as well as the request's own.
// The same endpoints on the plain proxy path and on the general path answer alike. A multipart
// body that streams is read on its way and its end held back until every check passed, so a
// refused request never reaches the backend whole.
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway, type AccessGateway } from '../access/testing/access-gateway.js';
import type { Dyn, Permission } from '../config/model.js';
import type { GatewayLogRecord } from '../contracts.js';
import { formOverrideMatters } from '../http/method-override.js';
import { startBackend } from './testing/endpoint-gateway.js';
import { permissionDefinitions, plainAndGeneralApis, sendBoth, tokToken } from './testing/guarded-backend.js';

/**
 * `/perm/**`: readers may GET, writers may also POST; `/admin/**`: the same, and admins PUT;
 * `/form/**`: GET and POST, no permission; `/read/**`: the same, its body read by an expression
 * (so buffered); `/ro/**`: only GET.
 */
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
    endpoint "/admin/**" {
      access_control = ["tok"]
      beta_required_permission = {
        GET  = "read"
        POST = "write"
        PUT  = "admin"
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
    endpoint "/read/**" {
      allowed_methods          = ["GET", "POST"]
      beta_required_permission = ""
      custom_log_fields = {
        body_length = length(request.body)
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

/** The access lines of the requests under `prefix`: status, error type and message. */
function logLines(gw: AccessGateway, prefix: string): Array<{ status: unknown; errorType: unknown; message: string }> {
  return accessLines(gw)
    .filter((l: GatewayLogRecord) => String(l['url']).includes(`${prefix}/`))
    .map((l) => ({ status: l['status'], errorType: l['error_type'] ?? null, message: String(l['message'] ?? '') }));
}

const BOUNDARY = 'portico-test-boundary';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

type Part = { name: string; value: string; filename?: string };

function multipart(parts: readonly Part[]): string {
  const each = parts.map((p) => {
    const file = p.filename === undefined ? '' : `; filename="${p.filename}"\r\nContent-Type: text/plain`;
    return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"${file}\r\n\r\n${p.value}\r\n`;
  });
  return `${each.join('')}--${BOUNDARY}--\r\n`;
}

const FILE: Part = { name: 'upload', filename: 'notes.txt', value: 'line one\r\nline two with --dashes\r\n' };

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
      ['.method=PUT (PHP reads _method)', 'GET', '/ro/x?.method=PUT', {}],
      ['%20method=PUT (PHP drops the space: method)', 'GET', '/ro/x?%20method=PUT', {}],
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
      '.method=PUT (PHP reads _method): 405',
      '%20method=PUT (PHP drops the space: method): 200',
    ]);
    expect(plain[3]?.allow).toBe('GET, POST');
    expect(plain[11]?.allow).toBe('GET');
    expect(plain[8]?.error).toBe('client request error');
    // Refused requests never reach the backend; allowed ones do, with the header as sent.
    expect(plain.map((r) => r.reached)).toEqual(plain.map((r) => r.status === 200));

    const lines = (prefix: string) => logLines(gw, prefix);
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
      ['allowed_methods, +.method=PUT (PHP reads _method)', '/form/x', form, 'a=1&+.method=PUT'],
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
      'allowed_methods, +.method=PUT (PHP reads _method): 405',
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
    expect(lines[12]).toMatchObject({ error_type: 'method_not_allowed', message: expect.stringContaining('PUT (named by the " .method" form field (PHP reads it as _method)) is not allowed here') });
    const overrideDenials = gw.denials.filter((d) => d.type === 'method_override' && d.path.startsWith('/plain/')).map((d) => d.path);
    expect(overrideDenials).toEqual(cases.filter((_, i) => plain[i]!.status === 405).map(([, path]) => `/plain${path}`));
  });

  it('checks _method fields in a multipart POST body, streamed (read on its way, its end held back) or buffered, and forwards the body as sent', async () => {
    const backend = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin) });
    const writer = await tokToken({ sub: 'bob', perms: ['read', 'write'] });
    type Case = [name: string, path: string, body: string, options?: { token?: string; contentType?: string }];
    const big = 'x'.repeat(3 * 1024 * 1024);
    const cases: Case[] = [
      ['writer, a file and a field', '/perm/x', multipart([FILE, { name: 'title', value: 't' }]), { token: writer }],
      ['writer, a file then _method=DELETE', '/perm/x', multipart([FILE, { name: '_method', value: 'DELETE' }]), { token: writer }],
      ['writer, _method=PUT (needs admin)', '/admin/x', multipart([{ name: '_method', value: 'put' }, FILE]), { token: writer }],
      ['writer, _method=GET (read granted)', '/perm/x', multipart([{ name: '_method', value: 'GET' }]), { token: writer }],
      ['writer, .method=DELETE (PHP reads _method)', '/perm/x', multipart([{ name: '.method', value: 'DELETE' }]), { token: writer }],
      ['writer, a file part named _method', '/perm/x', multipart([{ name: '_method', filename: 'm.txt', value: 'DELETE' }]), { token: writer }],
      ['no token, _method=DELETE', '/perm/x', multipart([{ name: '_method', value: 'DELETE' }])],
      ['allowed_methods, _method=PUT', '/form/x', multipart([FILE, { name: '_method', value: 'PUT' }])],
      ['allowed_methods, an empty _method', '/form/x', multipart([{ name: '_method', value: '' }])],
      ['allowed_methods, no closing boundary', '/form/x', multipart([FILE]).replace(`--${BOUNDARY}--\r\n`, '')],
      ['allowed_methods, no boundary parameter', '/form/x', multipart([FILE]), { contentType: 'multipart/form-data' }],
      ['allowed_methods, 3 MB then _method=DELETE', '/form/x', multipart([{ ...FILE, value: big }, { name: '_method', value: 'DELETE' }])],
      ['allowed_methods, 3 MB', '/form/x', multipart([{ ...FILE, value: big }])],
      ['buffered, _method=PUT', '/read/x', multipart([FILE, { name: '_method', value: 'PUT' }])],
      ['buffered, _method=get', '/read/x', multipart([FILE, { name: '_method', value: 'get' }])],
      ['allowed_methods, _method=DELETE then 3 MB', '/form/x', multipart([{ name: '_method', value: 'DELETE' }, { ...FILE, value: big }])],
    ];
    const seen =
      (prefix: string) =>
      async ([, path, body, options = {}]: Case) => {
        const headers: Record<string, string> = { 'content-type': options.contentType ?? MULTIPART, ...(options.token === undefined ? {} : { 'x-token': options.token }) };
        const before = backend.seen.length;
        const res = await fetch(gw.url(`${prefix}${path}`), { method: 'POST', headers, body });
        const text = await res.text();
        const echoed = text.includes('"method"') ? (JSON.parse(text) as { method: string; body: string }) : null;
        return { status: res.status, allow: res.headers.get('allow'), intact: echoed === null ? null : echoed.method === 'POST' && echoed.body === body, reached: backend.seen.length - before };
      };
    const { plain, general } = await sendBoth(cases, seen);
    expect(plain).toEqual(general);
    expect(plain.map((r, i) => `${cases[i]![0]}: ${r.status}`)).toEqual([
      'writer, a file and a field: 200',
      'writer, a file then _method=DELETE: 405',
      'writer, _method=PUT (needs admin): 403',
      'writer, _method=GET (read granted): 200',
      'writer, .method=DELETE (PHP reads _method): 405',
      'writer, a file part named _method: 200',
      'no token, _method=DELETE: 401',
      'allowed_methods, _method=PUT: 405',
      'allowed_methods, an empty _method: 400',
      'allowed_methods, no closing boundary: 400',
      'allowed_methods, no boundary parameter: 400',
      'allowed_methods, 3 MB then _method=DELETE: 405',
      'allowed_methods, 3 MB: 200',
      'buffered, _method=PUT: 405',
      'buffered, _method=get: 200',
      'allowed_methods, _method=DELETE then 3 MB: 405',
    ]);
    expect(plain[1]?.allow).toBe('GET, POST');
    expect(plain[7]?.allow).toBe('GET, POST');
    // What went through reached the backend once, as a POST with the body byte for byte; what was refused never reached it whole.
    for (const [i, r] of plain.entries()) {
      if (r.status === 200) expect(r, cases[i]![0]).toMatchObject({ intact: true, reached: 1 });
      else expect(r, cases[i]![0]).toMatchObject({ intact: null, reached: 0 });
    }

    expect(logLines(gw, '/plain').map((l) => l.status)).toEqual(logLines(gw, '/general').map((l) => l.status));
    const plainLines = logLines(gw, '/plain');
    expect(plainLines[1]).toMatchObject({ errorType: 'method_not_allowed', message: expect.stringContaining('DELETE (named by the _method form field) is not permitted by beta_required_permission') });
    expect(plainLines[2]).toMatchObject({ errorType: 'beta_insufficient_permissions', message: expect.stringContaining('"admin" not granted') });
    expect(plainLines[4]).toMatchObject({ message: expect.stringContaining('named by the ".method" form field (PHP reads it as _method)') });
    expect(plainLines[8]).toMatchObject({ errorType: 'client_request', message: expect.stringContaining('the _method form field names no single HTTP method') });
    expect(plainLines[9]).toMatchObject({ errorType: 'client_request', message: expect.stringContaining('ended before its closing boundary') });
    expect(plainLines[10]).toMatchObject({ errorType: 'client_request', message: expect.stringContaining('no boundary parameter') });
    expect(plainLines[13]).toMatchObject({ errorType: 'method_not_allowed', message: expect.stringContaining('PUT (named by the _method form field) is not allowed here') });
    // The 405s an override caused are told to the consoles as denials by the method check.
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
