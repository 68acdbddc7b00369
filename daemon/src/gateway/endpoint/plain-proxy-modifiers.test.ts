// A plain proxy route may carry the response header modifiers of its server, api, endpoint and
// proxy, the request header and query modifiers of its endpoint and proxy, and custom_log_fields
// (constants, or expressions reading `request` without its body, `env`, `gateway`, `backends`):
// the plain handler applies and evaluates them itself. It must answer, log and count exactly as
// the general path does: the same route under an api with an (unrelated) error handler that reads
// the proxy's exchange takes the general path, and both see the same requests.
import { describe, expect, it } from 'vitest';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import type { GatewayLogRecord } from '../contracts.js';
import { startBackend, type SeenRequest } from './testing/endpoint-gateway.js';
import { backendAndJwt, compilesPlain, GENERAL_PATH_HANDLER, plainAndGeneralServer, sendBoth, tokToken } from './testing/guarded-backend.js';

const ENDPOINT_MODIFIERS = `
    access_control = ["tok"]
    add_response_headers = {
      x-request = request.id
      x-agent   = request.headers.user-agent
      x-sub     = request.context.tok.sub
      x-home    = env.HOME_DIR
      x-method  = to_lower(request.method)
      x-backend = "endpoint"
    }
    remove_response_headers = ["x-drop"]`;

/** `/plain/**` compiles plain; `/general/**` is the same route inside an api whose error handler forces the general path. */
function config(origin: string, endpointModifiers = ENDPOINT_MODIFIERS, proxyModifiers = ''): string {
  return `
${plainAndGeneralServer(endpointModifiers, 'set_response_headers = { x-server = "s", x-backend = "server" }', proxyModifiers)}
definitions {
${backendAndJwt(origin, 'header = "X-Token"')}
}
`;
}

/**
 * Answers with headers for the modifiers to change; `/big` with a body too large to be read
 * whole (it streams); `/empty` a 204 that announces a length it does not send, which undici
 * reports as an error of the body after the head.
 */
function respond(req: SeenRequest, res: import('node:http').ServerResponse): void {
  const body = req.url.includes('/big') ? 'b'.repeat(200_000) : JSON.stringify({ url: req.url.replace(/^\/(plain|general)/, '<route>') });
  // X-Hop is named by Connection: a hop-by-hop header that neither path may pass on.
  res.writeHead(req.url.includes('/empty') ? 204 : 200, { 'content-type': 'application/json', 'cache-control': 'max-age=60', 'x-drop': 'gone', 'x-backend': 'origin', connection: 'keep-alive, x-hop', 'x-hop': 'h', 'content-length': Buffer.byteLength(body) });
  res.end(req.url.includes('/empty') ? undefined : body);
}

function compiles(hcl: string, path: string): Promise<boolean> {
  return compilesPlain(hcl, path, undefined, { HOME_DIR: '/home/ada' });
}

describe('a plain proxy route with header and query modifiers and log fields', () => {
  it('compiles to the plain handler only when its modifiers are headers and query parameters that read no body, backend variable or login', async () => {
    const origin = 'http://127.0.0.1:9';
    expect(await compiles(config(origin), '/plain/**')).toBe(true);
    expect(await compiles(config(origin), '/**')).toBe(false);
    const general = [
      'set_response_headers = { x-b = request.body }',
      'set_response_headers = { x-b = request.json_body.a }',
      'set_response_headers = { x-r = json_encode(request) }',
      'set_response_headers = { x-s = backend_responses.default.status }',
      'set_response_headers = { x-v = oauth2_verifier() }',
      'set_response_status = 201',
      'set_form_params = { a = "1" }',
      'set_request_headers = { x-b = request.form_body.a[0] }',
      'add_query_params = { a = backend_requests.default.method }',
    ];
    const plain = [
      'set_response_headers = { x-h = backends.b.health.state, x-v = gateway.version }',
      'set_request_headers = { x-a = "1", x-sub = request.context.tok.sub }',
      'remove_request_headers = ["x-a"]',
      'add_query_params = { a = request.headers.x-a }',
    ];
    // On the endpoint and on its proxy (which has no set_response_status).
    for (const [modifier, isPlain] of [...general.map((m) => [m, false] as const), ...plain.map((m) => [m, true] as const)]) {
      expect(await compiles(config(origin, modifier), '/plain/**'), `endpoint: ${modifier}`).toBe(isPlain);
      if (modifier !== 'set_response_status = 201') expect(await compiles(config(origin, '', modifier), '/plain/**'), `proxy: ${modifier}`).toBe(isPlain);
    }
  });

  it('answers, modifies, logs and counts as the general path, a streamed answer and a 204 included', async () => {
    const backend = await startBackend(respond);
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin) }, { HOME_DIR: '/home/ada' });
    const token = await tokToken({ sub: 'ada' });
    const cases: [string, string, Record<string, string>][] = [
      ['refused', '/x', {}],
      ['small', '/x?q=1', { 'x-token': token, 'user-agent': 'ua/1' }],
      ['streamed', '/big', { 'x-token': token, 'user-agent': 'ua/2' }],
      ['no content', '/empty', { 'x-token': token }],
    ];
    const names = ['x-server', 'x-backend', 'x-agent', 'x-sub', 'x-home', 'x-method', 'x-drop', 'x-hop', 'cache-control', 'content-type', 'content-length', 'www-authenticate'];
    const seen = (prefix: string) => async ([, path, headers]: [string, string, Record<string, string>]) => {
      const res = await fetch(gw.url(`${prefix}${path}`), { headers });
      const body = await res.text();
      // An error page is JSON under an api and HTML elsewhere: for those, what matters is the status and the challenge.
      const shown = res.status < 400 ? names : ['www-authenticate', 'x-sub', 'x-backend'];
      const picked = Object.fromEntries(shown.map((n) => [n, res.headers.get(n)]));
      return { status: res.status, headers: picked, ownId: res.headers.get('x-request') === res.headers.get('gateway-request-id'), body: res.status >= 400 ? '' : body.length > 1000 ? `${body.length} bytes` : body };
    };
    const { plain, general } = await sendBoth(cases, seen);
    expect(plain).toEqual(general);
    expect(plain.map((r) => r.status)).toEqual([401, 200, 200, 204]);
    expect(plain[1]).toMatchObject({
      ownId: true,
      headers: { 'x-server': 's', 'x-backend': 'server, endpoint', 'x-agent': 'ua/1', 'x-sub': 'ada', 'x-home': '/home/ada', 'x-method': 'get', 'x-drop': null, 'x-hop': null, 'cache-control': 'max-age=60, private' },
      body: '{"url":"<route>/x?q=1"}',
    });
    expect(plain[2]).toMatchObject({ ownId: true, body: '200000 bytes', headers: { 'x-agent': 'ua/2' } });
    // Refused before the backend: no endpoint modifier ran (the request never got there).
    expect(plain[0]?.headers['x-sub']).toBeNull();

    // The backend lines show what the backend sent, not what the gateway made of it.
    const backendLines = (prefix: string): unknown[] =>
      gw.records.filter((r) => r.type === 'gateway_backend' && String((r['request'] as { path?: string } | undefined)?.path ?? r['url'] ?? '').includes(prefix)).map((r) => (r['response'] as { headers?: unknown } | undefined)?.headers);
    expect(backendLines('/plain/')).toHaveLength(3);
    expect(backendLines('/plain/')).toEqual(backendLines('/general/'));
    for (const headers of backendLines('/plain/')) expect(JSON.stringify(headers)).not.toContain('private');

    const fields = (prefix: string) => accessLines(gw).filter((l: GatewayLogRecord) => String(l['url']).includes(prefix)).map((l) => [l['status'], l['error_type'] ?? null, l['handler']]);
    expect(fields('/plain/')).toHaveLength(4);
    expect(fields('/plain/')).toEqual(fields('/general/'));
  });

  it('sends the backend what the general path sends: request headers and query parameters of endpoint then proxy, a client body', async () => {
    const backend = await startBackend(respond);
    const endpoint = `
    access_control = ["tok"]
    set_request_headers = { x-user = request.context.tok.sub, x-order = "endpoint", x-agent = "endpoint" }
    remove_request_headers = ["x-secret"]
    set_query_params = { q = "endpoint", method = to_lower(request.method) }
    add_query_params = { tag = request.headers.x-tag }`;
    const proxy = `
      add_request_headers = { x-order = "proxy" }
      set_request_headers = { x-agent = request.headers.user-agent }
      remove_query_params = ["drop"]
      add_query_params = { q = "proxy" }
      add_response_headers = { x-backend = "proxy" }`;
    const hcl = config(backend.origin, endpoint, proxy);
    expect(await compiles(hcl, '/plain/**')).toBe(true);
    const gw = await startAccessGateway({ 'portico.hcl': hcl }, { HOME_DIR: '/home/ada' });
    const token = await tokToken({ sub: 'ada' });
    const cases: [string, RequestInit][] = [
      ['/x?q=client&drop=1&keep=2', { headers: { 'x-token': token, 'x-secret': 's', 'x-tag': 't1', 'user-agent': 'ua/1' } }],
      ['/form', { method: 'POST', body: 'a=1&b=2', headers: { 'x-token': token, 'content-type': 'application/x-www-form-urlencoded', 'x-tag': 't2' } }],
      ['/none', { headers: { 'x-token': token } }],
    ];
    const sent = async (prefix: string) => {
      const out = [];
      for (const [path, init] of cases) {
        const before = backend.seen.length;
        const res = await fetch(gw.url(`${prefix}${path}`), init);
        await res.arrayBuffer();
        const seen = backend.seen[before];
        if (!seen) throw new Error(`${prefix}${path}: the backend saw nothing (${res.status})`);
        const { 'gateway-request-id': id, ...headers } = seen.headers;
        out.push({ status: res.status, backendHeader: res.headers.get('x-backend'), ownId: id === res.headers.get('gateway-request-id'), method: seen.method, url: seen.url.replace(`${prefix}/`, '/<route>/'), headers, body: seen.body });
      }
      return out;
    };
    const plain = await sent('/plain');
    expect(plain).toEqual(await sent('/general'));
    expect(plain[0]).toMatchObject({ status: 200, backendHeader: 'server, proxy', ownId: true, url: '/<route>/x?keep=2&q=endpoint&method=get&tag=t1&q=proxy' });
    expect(plain[0]?.headers).toMatchObject({ 'x-user': 'ada', 'x-order': 'endpoint, proxy', 'x-agent': 'ua/1' });
    expect(plain[0]?.headers).not.toHaveProperty('x-secret');
    expect(plain[1]).toMatchObject({ method: 'POST', body: 'a=1&b=2', url: '/<route>/form?q=endpoint&method=post&tag=t2&q=proxy' });
    expect(plain[1]?.headers).toMatchObject({ 'content-length': '7', 'content-type': 'application/x-www-form-urlencoded' });
    // No x-tag header: the parameter is not set (null removes nothing, adds nothing).
    expect(plain[2]?.url).toBe('/<route>/none?q=endpoint&method=get&q=proxy');
    const fields = (prefix: string) => accessLines(gw).filter((l: GatewayLogRecord) => String(l['url']).includes(prefix)).map((l) => [l['status'], l['error_type'] ?? null, l['handler']]);
    expect(fields('/plain/')).toEqual(fields('/general/'));
  });

  it('applies the backend modifiers after the route ones, as the general path: request headers after the body headers, response headers last', async () => {
    const backend = await startBackend(respond);
    const hcl = (backendLines: string) => `
${plainAndGeneralServer('set_request_headers = { x-order = "endpoint" }', 'set_response_headers = { x-server = "s", x-backend = "server" }', 'add_request_headers = { x-order = "proxy" }\n      add_response_headers = { x-backend = "proxy" }')}
definitions {
  backend "b" {
    origin = "${backend.origin}"
    ${backendLines}
  }
}
`;
    const lines = `add_request_headers    = { x-order = "backend", x-home = env.HOME_DIR, x-len = request.headers.content-length }
    remove_request_headers = ["x-secret"]
    set_query_params       = { b = to_upper(request.method) }
    add_response_headers   = { x-backend = "backend" }
    remove_response_headers = ["x-drop"]`;
    expect(await compiles(hcl(lines), '/plain/**')).toBe(true);
    for (const general of ['set_request_headers = { x-u = backend_request.url }', 'set_response_status = 202', 'add_response_headers = { x-s = backend_response.status }']) {
      expect(await compiles(hcl(general), '/plain/**'), general).toBe(false);
    }
    const gw = await startAccessGateway({ 'portico.hcl': hcl(lines) }, { HOME_DIR: '/home/ada' });
    const cases: [string, RequestInit][] = [
      ['/x?keep=1', { headers: { 'x-secret': 's' } }],
      ['/post', { method: 'POST', body: 'hello', headers: { 'content-type': 'text/plain' } }],
      ['/big', {}],
    ];
    const sent = async (prefix: string) => {
      const out = [];
      for (const [path, init] of cases) {
        const before = backend.seen.length;
        const res = await fetch(gw.url(`${prefix}${path}`), init);
        const text = await res.text();
        const seen = backend.seen[before];
        if (!seen) throw new Error(`${prefix}${path}: the backend saw nothing (${res.status})`);
        const { 'gateway-request-id': _id, ...headers } = seen.headers;
        out.push({ status: res.status, answer: { backend: res.headers.get('x-backend'), drop: res.headers.get('x-drop'), length: text.length }, url: seen.url.replace(`${prefix}/`, '/<route>/'), headers, body: seen.body });
      }
      return out;
    };
    const plain = await sent('/plain');
    expect(plain).toEqual(await sent('/general'));
    expect(plain[0]).toMatchObject({ status: 200, answer: { backend: 'server, proxy, backend', drop: null }, url: '/<route>/x?keep=1&b=GET' });
    expect(plain[0]?.headers).toMatchObject({ 'x-order': 'endpoint, proxy, backend', 'x-home': '/home/ada' });
    expect(plain[0]?.headers).not.toHaveProperty('x-secret');
    expect(plain[1]).toMatchObject({ body: 'hello', url: '/<route>/post?b=POST' });
    expect(plain[1]?.headers).toMatchObject({ 'x-len': '5', 'content-length': '5' });
    expect(plain[2]).toMatchObject({ status: 200, answer: { backend: 'server, proxy, backend', drop: null, length: 200_000 } });
  });

  it('answers a request modifier that fails as the general path does, before the backend is called', async () => {
    const backend = await startBackend(respond);
    const failing = 'set_request_headers = { x-n = 1 + request.headers.x-not-a-number }';
    for (const [endpoint, proxy] of [[failing, ''], ['', failing], ['', 'add_query_params = { n = 1 + request.headers.x-not-a-number }']] as const) {
      const hcl = config(backend.origin, endpoint, proxy);
      expect(await compiles(hcl, '/plain/**')).toBe(true);
      const gw = await startAccessGateway({ 'portico.hcl': hcl }, { HOME_DIR: '/home/ada' });
      const answer = async (prefix: string) => {
        const res = await fetch(gw.url(`${prefix}/x`), { headers: { 'x-not-a-number': 'abc' } });
        // The error page is JSON under an api and HTML elsewhere: what matters is the status.
        return { status: res.status, body: (await res.text()).length > 0 };
      };
      const before = backend.seen.length;
      const plain = await answer('/plain');
      expect(plain).toEqual(await answer('/general'));
      expect(plain.status).toBe(500);
      expect(backend.seen.length).toBe(before);
      const fields = (prefix: string) => accessLines(gw).filter((l: GatewayLogRecord) => String(l['url']).includes(prefix)).map((l) => [l['status'], l['error_type'] ?? null, l['handler'], typeof l['message']]);
      expect(fields('/plain/')).toEqual(fields('/general/'));
      expect(fields('/plain/')).toEqual([[500, 'evaluation', 'endpoint', 'string']]);
    }
  });

  it('logs the custom_log_fields of server, api and endpoint as the general path does, refused, answered and failing', async () => {
    const backend = await startBackend(respond);
    const endpoint = `
    access_control = ["tok"]
    custom_log_fields = {
      sub   = request.context.tok.sub
      agent = request.headers.user-agent
      home  = env.HOME_DIR
      bad   = 1 + request.headers.x-not-a-number
    }`;
    const hcl = `
server {
  hosts = ["*:0"]
  custom_log_fields = { server = "s", method = request.method }
  endpoint "/plain/**" {
    ${endpoint}
    proxy {
      backend = "b"
    }
  }
  api {
    base_path = "/general"
    custom_log_fields = { api = true }
    ${GENERAL_PATH_HANDLER}
    endpoint "/**" {
      ${endpoint}
      proxy {
        backend = "b"
      }
    }
  }
}
definitions {
${backendAndJwt(backend.origin, 'header = "X-Token"')}
}
`;
    expect(await compiles(hcl, '/plain/**')).toBe(true);
    expect(await compiles(hcl.replace('home  = env.HOME_DIR', 'status = backend_responses.default.status'), '/plain/**')).toBe(false);
    expect(await compiles(hcl.replace('home  = env.HOME_DIR', 'body = request.body'), '/plain/**')).toBe(false);
    const gw = await startAccessGateway({ 'portico.hcl': hcl }, { HOME_DIR: '/home/ada' });
    const token = await tokToken({ sub: 'ada' });
    const cases: Record<string, string>[] = [{}, { 'x-token': token, 'user-agent': 'ua/1', 'x-not-a-number': '2' }, { 'x-token': token, 'x-not-a-number': 'abc' }];
    for (const headers of cases) {
      for (const prefix of ['/plain', '/general']) await (await fetch(gw.url(`${prefix}/big`), { headers })).arrayBuffer();
    }
    // The api's own field is the general route's alone: set it aside, the rest must be the same.
    const custom = (prefix: string) =>
      accessLines(gw)
        .filter((l: GatewayLogRecord) => String(l['url']).includes(prefix))
        .map((l) => {
          const { api, ...rest } = (l['custom'] ?? {}) as Record<string, unknown>;
          return { status: l['status'], api: api ?? null, custom: rest };
        });
    const plain = custom('/plain/');
    expect(plain.map((l) => ({ ...l, api: null }))).toEqual(custom('/general/').map((l) => ({ ...l, api: null })));
    expect(custom('/general/').map((l) => l.api)).toEqual([true, true, true]);
    // An object whose expression fails is left out whole (the refused request has no x-not-a-number to add to), and reported.
    expect(plain).toEqual([
      { status: 401, api: null, custom: { server: 's', method: 'GET' } },
      { status: 200, api: null, custom: { server: 's', method: 'GET', sub: 'ada', agent: 'ua/1', home: '/home/ada', bad: 3 } },
      { status: 200, api: null, custom: { server: 's', method: 'GET' } },
    ]);
    const failures = gw.records.filter((r) => r.type === 'gateway_daemon' && String(r['message']).startsWith('custom_log_fields'));
    expect(failures.length).toBe(4);
  });

  it('answers an expression that fails as the general path does', async () => {
    const backend = await startBackend(respond);
    const failing = 'set_response_headers = { x-n = 1 + request.headers.x-not-a-number }';
    const gw = await startAccessGateway({ 'portico.hcl': config(backend.origin, failing) }, { HOME_DIR: '/home/ada' });
    expect(await compiles(config(backend.origin, failing), '/plain/**')).toBe(true);
    // A small answer (read whole) and a streamed one, whose body nobody will read.
    const answer = async (prefix: string, path: string) => {
      const res = await fetch(gw.url(`${prefix}${path}`), { headers: { 'x-not-a-number': 'abc' } });
      await res.arrayBuffer();
      return { status: res.status, n: res.headers.get('x-n') };
    };
    for (const path of ['/x', '/big']) {
      const plain = await answer('/plain', path);
      expect(plain, path).toEqual(await answer('/general', path));
      expect(plain.status, path).toBe(500);
    }
    const fields = (prefix: string) => accessLines(gw).filter((l: GatewayLogRecord) => String(l['url']).includes(prefix)).map((l) => [l['status'], l['error_type'] ?? null, l['handler']]);
    expect(fields('/plain/')).toEqual(fields('/general/'));
  });
});
