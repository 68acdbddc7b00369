// A plain proxy route may have error handlers (its access controls', its endpoint's, its api's)
// when none of them reads the proxy's exchange (`backend_requests.default`,
// `backend_responses.default`), which the plain handler does not record: a failure is then
// answered by the same handlers as on the general path. The same routes under an api that also
// has an (unrelated) handler reading that exchange take the general path; both are sent the same
// requests, and what they answer, log and send the handlers' own backends must be the same.
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import type { GatewayLogRecord } from '../contracts.js';
import { startBackend, type SeenRequest } from './testing/endpoint-gateway.js';
import { compilesPlain, JWT_SECRET, plainAndGeneralApis, sendBoth, tokToken } from './testing/guarded-backend.js';

/** The endpoints of each api: one behind jwt "tok" with its own handlers, one open. */
const ENDPOINTS = `
    endpoint "/open/**" {
      proxy {
        backend = "b"
      }
    }
    endpoint "/**" {
      access_control = ["tok"]
      add_response_headers = { x-endpoint = "e" }
      set_request_headers = { x-n = request.headers.x-n == null ? "none" : 1 + request.headers.x-n }
      proxy {
        backend = "b"
      }
      error_handler "backend_timeout" {
        custom_log_fields = { handled = "timeout", sub = request.context.tok.sub }
        set_response_headers = { x-handler = "timeout" }
        request "notify" {
          backend = "notify"
          json_body = { id = request.id, path = request.path }
        }
        response {
          status = 504
          json_body = { sub = request.context.tok.sub, notified = backend_responses.notify.status }
        }
      }
      error_handler {
        response {
          status = 400
          body = "the endpoint could not answer"
        }
      }
    }`;

/** The api's own: for a backend that fails otherwise (a reset connection). */
const API_HANDLER = `error_handler "backend" {
      add_response_headers = { x-handler = "api" }
      response {
        status = 503
        json_body = { id = request.id, method = request.method }
      }
    }`;

function config(origin: string, notify: string, endpoints = ENDPOINTS, extraHandler = ''): string {
  const apiLines = `add_response_headers = { x-api = "a" }
    ${API_HANDLER}`;
  const serverLines = `set_response_headers = { x-server = "s" }
  custom_log_fields = { server = "s" }`;
  return `${plainAndGeneralApis(endpoints, { apiLines, serverLines })}
definitions {
  backend "b" {
    origin  = "${origin}"
    timeout = "300ms"
  }
  backend "notify" {
    origin = "${notify}"
    path   = "/notify"
  }
  jwt "tok" {
    signature_algorithm = "HS256"
    key                 = "${JWT_SECRET}"
    header              = "X-Token"
    error_handler "jwt_token_missing" {
      set_response_headers = { www-authenticate = "Bearer realm=\\"tok\\"" }
      response {
        status    = 401
        json_body = { error = "sign in first" }
      }
    }
    ${extraHandler}
  }
}
`;
}

/** `/slow` answers after the backend's timeout; `/reset` closes the connection unanswered; the rest echo the path and x-n. */
async function respond(req: SeenRequest, res: import('node:http').ServerResponse): Promise<void> {
  if (req.url.includes('/slow')) await new Promise((resolve) => setTimeout(resolve, 1000));
  if (req.url.includes('/reset')) {
    res.socket?.destroy();
    return;
  }
  if (res.destroyed) return;
  const body = JSON.stringify({ path: req.url.replace(/^\/(plain|general)/, '<route>'), n: req.headers['x-n'] });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function compiles(hcl: string, base: string, pattern: string): Promise<boolean> {
  return compilesPlain(hcl, pattern, base);
}

describe('a plain proxy route with error handlers', () => {
  it('compiles to the plain handler only when no error handler reads the proxy exchange', async () => {
    const hcl = config('http://127.0.0.1:9', 'http://127.0.0.1:9');
    for (const pattern of ['/open/**', '/**']) {
      expect(await compiles(hcl, '/plain', pattern), pattern).toBe(true);
      expect(await compiles(hcl, '/general', pattern), pattern).toBe(false);
    }
    // Where a handler reads the failed proxy's exchange: endpoint, api, access control, a nested handler, a handler's backend.
    const exchangeReads = [
      'backend_responses.default.status',
      'backend_requests.default.url',
      'length(backend_responses)',
      'backend_responses["default"].status',
    ];
    for (const read of exchangeReads) {
      const inEndpoint = hcl.replaceAll('notified = backend_responses.notify.status', `notified = ${read}`);
      expect(await compiles(inEndpoint, '/plain', '/**'), `endpoint: ${read}`).toBe(false);
      expect(await compiles(inEndpoint, '/plain', '/open/**'), `endpoint: ${read}`).toBe(true);
      const inApi = hcl.replaceAll('id = request.id, method = request.method', `id = ${read}`);
      expect(await compiles(inApi, '/plain', '/open/**'), `api: ${read}`).toBe(false);
      const inControl = hcl.replace('error = "sign in first"', `error = ${read}`);
      expect(await compiles(inControl, '/plain', '/**'), `jwt: ${read}`).toBe(false);
      expect(await compiles(inControl, '/plain', '/open/**'), `jwt: ${read}`).toBe(true);
    }
    const nested = hcl.replace(
      'json_body = { id = request.id, path = request.path }\n        }',
      'json_body = { id = request.id, path = request.path }\n        }\n        error_handler {\n          response {\n            status = backend_responses.default.status\n          }\n        }',
    );
    expect(nested).not.toEqual(hcl);
    expect(await compiles(nested, '/plain', '/**')).toBe(false);
    const notifyReads = hcl.replace('path   = "/notify"', 'path   = "/notify"\n    set_request_headers = { x-s = backend_responses.default.status }');
    expect(notifyReads).not.toEqual(hcl);
    expect(await compiles(notifyReads, '/plain', '/**')).toBe(false);
    // The handler's own request is its own to read; the client body is the general path's.
    expect(await compiles(hcl.replace('path = request.path }', 'path = request.body }'), '/plain', '/**')).toBe(false);
  });

  it('answers, logs and notifies as the general path: refusals, timeouts, failed connections and failed expressions', async () => {
    const backend = await startBackend(respond);
    const notify = await startBackend();
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin, notify.origin) });
    const token = await tokToken({ sub: 'ada' });
    const cases: [string, string, Record<string, string>][] = [
      ['no token: the jwt handler', '/x', {}],
      ['a bad token: no handler for it', '/x', { 'x-token': `${token}x` }],
      ['answered', '/x?q=1', { 'x-token': token, 'x-n': '2' }],
      ['timeout: the endpoint handler with its own request', '/slow', { 'x-token': token }],
      ['reset: the endpoint\'s handler of every error', '/reset', { 'x-token': token }],
      // As the peer, an expression's error is no error type a handler can name: none answers it, not even `*`.
      ['a failing request modifier: no handler', '/x', { 'x-token': token, 'x-n': 'abc' }],
      ['open, answered', '/open/x', {}],
      ['open, reset: the api handler', '/open/reset', {}],
      ['open, timeout: the api handler (backend is the parent)', '/open/slow', {}],
    ];
    const names = ['x-server', 'x-api', 'x-endpoint', 'x-handler', 'cache-control', 'content-type', 'www-authenticate'];
    const seen = (prefix: string) => async ([, path, headers]: [string, string, Record<string, string>]) => {
      const res = await fetch(gw.url(`${prefix}${path}`), { headers });
      const id = res.headers.get('gateway-request-id') ?? '';
      const body = (await res.text()).replaceAll(id, '<id>').replaceAll(prefix, '<route>');
      return { status: res.status, headers: Object.fromEntries(names.map((n) => [n, res.headers.get(n)])), body };
    };
    const { plain, general } = await sendBoth(cases, seen);
    expect(plain).toEqual(general);
    expect(plain.map((r) => r.status)).toEqual([401, 401, 200, 504, 400, 500, 200, 503, 503]);
    expect(plain[0]).toMatchObject({ body: '{"error":"sign in first"}', headers: { 'www-authenticate': 'Bearer realm="tok"', 'x-server': 's', 'x-api': 'a', 'x-endpoint': null, 'cache-control': null } });
    expect(plain[1]?.body).not.toContain('sign in first');
    expect(plain[2]).toMatchObject({ body: '{"path":"<route>/x?q=1","n":"3"}', headers: { 'x-endpoint': 'e', 'x-handler': null, 'cache-control': 'private' } });
    expect(plain[3]).toMatchObject({ body: '{"sub":"ada","notified":200}', headers: { 'x-handler': 'timeout', 'x-api': 'a', 'x-endpoint': null, 'cache-control': 'private' } });
    expect(plain[4]).toMatchObject({ body: 'the endpoint could not answer', headers: { 'x-handler': null, 'x-api': 'a', 'cache-control': 'private' } });
    // The api's error page (JSON), with its modifiers.
    expect(plain[5]).toMatchObject({ headers: { 'x-handler': null } });
    expect(JSON.parse(plain[5]?.body ?? '')).toEqual({ error: { id: '<id>', message: 'expression evaluation error', path: '<route>/x', status: 500 } });
    expect(plain[7]).toMatchObject({ body: '{"id":"<id>","method":"GET"}', headers: { 'x-handler': 'api', 'cache-control': null } });

    // The timeout handler's own request went out once for each route, with the request's path.
    const notified = notify.seen.map((r) => JSON.parse(r.body).path);
    expect(notified).toEqual(['/plain/slow', '/general/slow']);

    const lines = (prefix: string) =>
      accessLines(gw)
        .filter((l: GatewayLogRecord) => String(l['url']).includes(prefix))
        .map((l) => ({ status: l['status'], errorType: l['error_type'] ?? null, handler: l['handler'], custom: l['custom'] ?? null }));
    expect(lines('/plain/')).toHaveLength(cases.length);
    expect(lines('/plain/')).toEqual(lines('/general/'));
    expect(lines('/plain/').map((l) => l.handler)).toEqual([
      'error_handler:jwt_token_missing',
      'endpoint',
      'endpoint',
      'error_handler:backend_timeout',
      'error_handler:*',
      'endpoint',
      'endpoint',
      'error_handler:backend',
      'error_handler:backend',
    ]);
    expect(lines('/plain/')[3]).toMatchObject({ errorType: 'backend_timeout', custom: { server: 's', handled: 'timeout', sub: 'ada' } });
    expect(lines('/plain/')[4]).toMatchObject({ errorType: 'backend' });
    expect(lines('/plain/')[5]).toMatchObject({ errorType: 'evaluation' });
  });

  it('renders the error, with its modifiers, when a handler gives no response, and answers a failing handler with its nested one', async () => {
    const backend = await startBackend(respond);
    const notify = await startBackend();
    // The timeout handler only notifies; the api handler's own request fails and its nested handler answers.
    const endpoints = `
    endpoint "/**" {
      proxy {
        backend = "b"
      }
      error_handler "backend_timeout" {
        add_response_headers = { x-noted = backend_responses.notify.status }
        request "notify" {
          backend = "notify"
        }
      }
    }`;
    const failingApiHandler = API_HANDLER.replace('response {', 'request "side" {\n        url = "http://127.0.0.1:1/"\n      }\n      response {').replace(
      'json_body = { id = request.id, method = request.method }\n      }',
      'json_body = { id = request.id, method = request.method }\n      }\n      error_handler "backend" {\n        response {\n          status = 599\n        }\n      }',
    );
    const hcl = config(backend.origin, notify.origin, endpoints).replaceAll(API_HANDLER, failingApiHandler);
    expect(hcl).toContain('status = 599');
    expect(await compiles(hcl, '/plain', '/**')).toBe(true);
    const gw = await startAccessGateway({ 'portico.hcl': hcl });
    const statuses: Record<string, (number | string | null)[]> = { '/plain': [], '/general': [] };
    for (const path of ['/slow', '/reset']) {
      for (const prefix of ['/plain', '/general']) {
        const res = await fetch(gw.url(`${prefix}${path}`));
        await res.arrayBuffer();
        statuses[prefix]?.push(res.status, res.headers.get('x-noted'));
      }
    }
    // The notifying handler's modifiers apply to the rendered timeout.
    expect(statuses['/plain']).toEqual([504, '200', 599, null]);
    expect(statuses['/general']).toEqual(statuses['/plain']);
    expect(notify.seen).toHaveLength(2);
    const lines = (prefix: string) => accessLines(gw).filter((l) => String(l['url']).includes(prefix)).map((l) => [l['status'], l['error_type'], l['handler']]);
    expect(lines('/plain/')).toEqual(lines('/general/'));
  });
});
