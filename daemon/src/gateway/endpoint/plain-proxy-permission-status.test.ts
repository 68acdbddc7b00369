// A plain proxy route may have a `beta_required_permission` (a constant, or an expression under
// the modifiers' rules) and an `expected_status` on its proxy: the plain handler checks the
// permission once the access controls passed and the status once the backend answered, and
// their errors go to the same error handlers as on the general path. The same routes under an
// api with an (unrelated) handler reading the proxy's exchange take the general path; both are
// sent the same requests and must answer and log the same.
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import type { GatewayLogRecord } from '../contracts.js';
import { startBackend, type SeenRequest } from './testing/endpoint-gateway.js';
import { compilesPlain, permissionDefinitions, plainAndGeneralApis, sendBoth, tokToken } from './testing/guarded-backend.js';

/**
 * `/perm/**`, behind jwt "tok", needs a permission per method; `/status/**` expects 200 or 204
 * (a handler answers the rest), `/bare/**` 200 without a handler (both need no permission: as the
 * peer, an api where one endpoint requires one has every endpoint say so).
 */
const ENDPOINTS = `
    endpoint "/perm/**" {
      access_control = ["tok"]
      beta_required_permission = {
        GET  = "read"
        POST = request.headers.x-need
      }
      proxy {
        backend = "b"
      }
    }
    endpoint "/status/**" {
      beta_required_permission = ""
      proxy {
        backend = "b"
        expected_status = [200, 204]
      }
      error_handler "unexpected_status" {
        response {
          status    = 502
          json_body = { message = "the backend failed", id = request.id }
        }
      }
    }
    endpoint "/bare/**" {
      beta_required_permission = ""
      proxy {
        backend = "b"
        expected_status = [200]
      }
    }`;

const API_HANDLER = `error_handler "beta_insufficient_permissions" {
      response {
        status    = 403
        json_body = { need = request.headers.x-need }
      }
    }`;

function config(origin: string): string {
  return plainAndGeneralApis(ENDPOINTS, { apiLines: API_HANDLER }) + permissionDefinitions(origin);
}

/** `/500` and `/404` answer those statuses with a body (a large one for `/500?big`); the rest 200. */
function respond(req: SeenRequest, res: import('node:http').ServerResponse): void {
  const status = req.url.includes('/500') ? 500 : req.url.includes('/404') ? 404 : 200;
  const body = req.url.includes('big') ? 'x'.repeat(300_000) : JSON.stringify({ path: req.url.replace(/^\/(plain|general)/, '<route>') });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function compiles(hcl: string, base: string, pattern: string): Promise<boolean> {
  return compilesPlain(hcl, pattern, base);
}

describe('a plain proxy route with a permission or an expected status', () => {
  it('compiles to the plain handler unless the permission reads what a plain route cannot', async () => {
    const hcl = config('http://127.0.0.1:9');
    for (const pattern of ['/perm/**', '/status/**', '/bare/**']) {
      expect(await compiles(hcl, '/plain', pattern), pattern).toBe(true);
      expect(await compiles(hcl, '/general', pattern), pattern).toBe(false);
    }
    for (const read of ['request.body', 'request.json_body.need', 'backend_responses.default.status']) {
      expect(await compiles(hcl.replace('POST = request.headers.x-need', `POST = ${read}`), '/plain', '/perm/**'), read).toBe(false);
    }
  });

  it('answers and logs permissions and unexpected statuses as the general path', async () => {
    const backend = await startBackend(respond);
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin) });
    const reader = await tokToken({ sub: 'ada', perms: ['read'] });
    const writer = await tokToken({ sub: 'bob', perms: ['read', 'write'] });
    const cases: [string, string, string, Record<string, string>][] = [
      ['no token', 'GET', '/perm/x', {}],
      ['granted', 'GET', '/perm/x', { 'x-token': reader }],
      ['not granted: the api handler', 'POST', '/perm/x', { 'x-token': reader, 'x-need': 'write' }],
      ['granted by an expression', 'POST', '/perm/x', { 'x-token': writer, 'x-need': 'write' }],
      ['a method with no permission: 405', 'DELETE', '/perm/x', { 'x-token': writer }],
      ['expected', 'GET', '/status/x', {}],
      ['unexpected: the endpoint handler', 'GET', '/status/500', {}],
      ['unexpected, a large body let go', 'GET', '/status/500?big', {}],
      ['unexpected without a handler', 'GET', '/bare/404', {}],
    ];
    const seen = (prefix: string) => async ([, method, path, headers]: [string, string, string, Record<string, string>]) => {
      const res = await fetch(gw.url(`${prefix}${path}`), { method, headers });
      const id = res.headers.get('gateway-request-id') ?? '';
      const body = (await res.text()).replaceAll(id, '<id>').replaceAll(prefix, '<route>');
      return { status: res.status, allow: res.headers.get('allow'), body: body.length > 1000 ? `${body.length} bytes` : body };
    };
    const { plain, general } = await sendBoth(cases, seen);
    expect(plain).toEqual(general);
    expect(plain.map((r) => r.status)).toEqual([401, 200, 403, 200, 405, 200, 502, 502, 502]);
    expect(plain[2]?.body).toBe('{"need":"write"}');
    expect(plain[4]?.allow).toBe('GET, POST');
    expect(plain[6]?.body).toBe('{"message":"the backend failed","id":"<id>"}');
    expect(JSON.parse(plain[8]?.body ?? '')).toMatchObject({ error: { status: 502 } });

    const lines = (prefix: string) =>
      accessLines(gw)
        .filter((l: GatewayLogRecord) => String(l['url']).includes(prefix))
        .map((l) => ({ status: l['status'], errorType: l['error_type'] ?? null, handler: l['handler'], message: String(l['message'] ?? '').replaceAll(backend.origin, '<origin>') }));
    expect(lines('/plain/')).toHaveLength(cases.length);
    expect(lines('/plain/')).toEqual(lines('/general/'));
    expect(lines('/plain/').map((l) => l.errorType)).toEqual([
      'jwt_token_missing',
      null,
      'beta_insufficient_permissions',
      null,
      'method_not_allowed',
      null,
      'unexpected_status',
      'unexpected_status',
      'unexpected_status',
    ]);
    expect(lines('/plain/')[6]).toMatchObject({ handler: 'error_handler:unexpected_status', message: expect.stringContaining('backend "b" answered 500, expected 200, 204') });
  });
});
