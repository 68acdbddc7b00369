// A plain proxy route may carry the response header modifiers of its server, api and endpoint
// (constants, or expressions reading `request` without its body, `env`, `gateway`, `backends`):
// the plain handler applies them itself. It must answer, log and count exactly as the general
// path does: the same route under an api with an (unrelated) error handler takes the general
// path, and both see the same requests.
import { describe, expect, it } from 'vitest';
import { loadOk } from '../config/testing/config-files.js';
import { accessLines, startAccessGateway } from '../access/testing/access-gateway.js';
import type { GatewayLogRecord } from '../contracts.js';
import { compilePlainProxy } from './plain-proxy.js';
import { startBackend, type SeenRequest } from './testing/endpoint-gateway.js';
import { backendAndJwt, plainAndGeneralServer, tokToken } from './testing/guarded-backend.js';

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

/** `/plain/**` compiles plain; `/general/**` is the same route inside an api whose error handler (for a timeout) forces the general path. */
function config(origin: string, endpointModifiers = ENDPOINT_MODIFIERS): string {
  return `
${plainAndGeneralServer(endpointModifiers, 'set_response_headers = { x-server = "s", x-backend = "server" }')}
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
  res.writeHead(req.url.includes('/empty') ? 204 : 200, { 'content-type': 'application/json', 'cache-control': 'max-age=60', 'x-drop': 'gone', 'x-backend': 'origin', 'content-length': Buffer.byteLength(body) });
  res.end(req.url.includes('/empty') ? undefined : body);
}

async function compiles(hcl: string, path: string): Promise<boolean> {
  const cfg = await loadOk({ 'portico.hcl': hcl }, { HOME_DIR: '/home/ada' });
  const server = cfg.servers[0]!;
  const api = server.apis.find((a) => a.endpoints.some((e) => e.pattern === path)) ?? null;
  const endpoint = (api ? api.endpoints : server.endpoints).find((e) => e.pattern === path)!;
  return compilePlainProxy({ config: cfg, server, api, endpoint }) !== null;
}

describe('a plain proxy route with response header modifiers', () => {
  it('compiles to the plain handler only when its modifiers are response headers that read no body, backend variable or login', async () => {
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
      'set_request_headers = { x-a = "1" }',
      'add_query_params = { a = "1" }',
    ];
    for (const modifier of general) expect(await compiles(config(origin, modifier), '/plain/**'), modifier).toBe(false);
    expect(await compiles(config(origin, 'set_response_headers = { x-h = backends.b.health.state, x-v = gateway.version }'), '/plain/**')).toBe(true);
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
    const names = ['x-server', 'x-backend', 'x-agent', 'x-sub', 'x-home', 'x-method', 'x-drop', 'cache-control', 'content-type', 'content-length', 'www-authenticate'];
    const seen = (prefix: string) => async ([, path, headers]: [string, string, Record<string, string>]) => {
      const res = await fetch(gw.url(`${prefix}${path}`), { headers });
      const body = await res.text();
      // An error page is JSON under an api and HTML elsewhere: for those, what matters is the status and the challenge.
      const shown = res.status < 400 ? names : ['www-authenticate', 'x-sub', 'x-backend'];
      const picked = Object.fromEntries(shown.map((n) => [n, res.headers.get(n)]));
      return { status: res.status, headers: picked, ownId: res.headers.get('x-request') === res.headers.get('gateway-request-id'), body: res.status >= 400 ? '' : body.length > 1000 ? `${body.length} bytes` : body };
    };
    const plain = [];
    const general = [];
    for (const c of cases) {
      plain.push(await seen('/plain')(c));
      general.push(await seen('/general')(c));
    }
    expect(plain).toEqual(general);
    expect(plain.map((r) => r.status)).toEqual([401, 200, 200, 204]);
    expect(plain[1]).toMatchObject({
      ownId: true,
      headers: { 'x-server': 's', 'x-backend': 'server, endpoint', 'x-agent': 'ua/1', 'x-sub': 'ada', 'x-home': '/home/ada', 'x-method': 'get', 'x-drop': null, 'cache-control': 'max-age=60, private' },
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
