import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { EndpointHandler } from '../contracts.js';
import { createEndpointHandler } from '../endpoint/endpoint-handler.js';
import { accessRecords, backendRecords, connect, RefusedUpgrade, serverOn, startWsBackend, startWsGateway } from './testing/ws-fixture.js';

const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('websockets in proxy', () => {
  it('relays text and binary frames both ways, on the proxy URL rules, and logs the 101', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({
      'portico.hcl': serverOn(`  endpoint "/ws/**" {\n    proxy {\n      backend = "b"\n      url = "/echo/**"\n      websockets = true\n    }\n  }`, `  backend "b" {\n    origin = "${backend.origin}"\n  }`),
    });
    const client = await connect(gw.wsUrl('/ws/room/1?x=1'));
    client.socket.send('ping text');
    expect(await client.next()).toBe('ping text');
    client.socket.send(Buffer.from([0, 1, 2, 255]));
    expect(await client.next()).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(client.headers['x-backend']).toBe('ws');
    expect(backend.upgrades.map((u) => u.url)).toEqual(['/echo/room/1?x=1']);
    client.socket.close(1000);
    await client.closed;

    const [access] = accessRecords(gw);
    expect(access).toMatchObject({ status: 101, method: 'GET', endpoint: '/ws/**', handler: 'endpoint', url: expect.stringContaining('/ws/room/1?x=1') });
    expect(backendRecords(gw)).toEqual([expect.objectContaining({ status: 101, backend: 'b', handler: 'default', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/echo\/room\/1\?x=1$/) })]);
  });

  it('does not lose a frame the backend sends right after the handshake', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/greet" {\n    proxy {\n      url = "${backend.origin}/greet"\n      websockets = true\n    }\n  }`) });
    const client = await connect(gw.wsUrl('/greet'));
    expect(await client.next()).toBe('hello');
  });

  it('passes close codes and reasons on, from either side', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`) });

    const fromBackend = await connect(gw.wsUrl('/close/4002'));
    expect(await fromBackend.closed).toEqual({ code: 4002, reason: 'bye' });

    const fromClient = await connect(gw.wsUrl('/echo'));
    fromClient.socket.close(4001, 'done');
    await fromClient.closed;
    await expect.poll(() => backend.closes.at(-1)).toEqual({ code: 4001, reason: 'done' });
  });

  it('offers the client subprotocols to the backend and answers its choice', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`) });
    const client = await connect(gw.wsUrl('/echo'), { protocols: ['chat.v1', 'chat.v2'] });
    expect(client.socket.protocol).toBe('chat.v2');
    expect(backend.upgrades[0]?.headers['sec-websocket-protocol']).toBe('chat.v1,chat.v2');
  });

  it('applies request header modifiers to the upgrade and response header modifiers to the 101', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({
      'portico.hcl': serverOn(`  set_response_headers = { x-server = "s" }
  endpoint "/**" {
    set_request_headers = { x-endpoint = "e" }
    proxy {
      url = "${backend.origin}/**"
      set_request_headers = { x-proxy = "p" }
      websockets {
        set_request_headers = { x-ws = request.headers["x-in"], x-proxy = "overridden" }
        remove_request_headers = ["x-drop"]
        set_response_headers = { x-ws-answer = "yes" }
        remove_response_headers = ["x-backend"]
      }
    }
  }`),
    });
    const client = await connect(gw.wsUrl('/echo'), { headers: { 'x-in': 'from-client', 'x-drop': 'secret' } });
    const seen = backend.upgrades[0]?.headers ?? {};
    expect(seen).toMatchObject({ 'x-endpoint': 'e', 'x-proxy': 'overridden', 'x-ws': 'from-client' });
    expect(seen['x-drop']).toBeUndefined();
    expect(client.headers).toMatchObject({ 'x-server': 's', 'x-ws-answer': 'yes', 'gateway-request-id': expect.any(String) });
    expect(client.headers['x-backend']).toBeUndefined();
  });

  it('proxies a request without Upgrade to the same endpoint as plain HTTP, without the websockets modifiers', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({
      'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets {\n        set_request_headers = { x-ws = "1" }\n      }\n    }\n  }`),
    });
    const res = await fetch(gw.url('/plain?q=1'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ method: 'GET', url: '/plain?q=1', upgrade: null });
    expect(backend.requests[0]?.headers['x-ws']).toBeUndefined();
    expect(backend.upgrades).toEqual([]);
  });

  it('closes the connection (1001) on both sides once the timeout passed', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({
      'portico.hcl': serverOn(`  endpoint "/timed/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets {\n        timeout = "1s"\n      }\n    }\n  }\n  endpoint "/open/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`),
    });
    // The control: a connection without a timeout, opened first.
    const control = await connect(gw.wsUrl('/open/echo'));
    const client = await connect(gw.wsUrl('/timed/echo'));
    client.socket.send('still here');
    expect(await client.next()).toBe('still here');
    expect(await client.closed).toEqual({ code: 1001, reason: 'websocket timeout' });
    await expect.poll(() => backend.closes).toEqual([{ code: 1001, reason: 'websocket timeout' }]);
    // Only the timed connection was closed: the control still relays.
    control.socket.send('after the timeout');
    expect(await control.next()).toBe('after the timeout');
  });

  it('runs the access controls first: a refused upgrade gets 401 with the challenge and never reaches the backend', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({
      'portico.hcl': serverOn(
        `  endpoint "/**" {\n    access_control = ["ba"]\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`,
        `  basic_auth "ba" {\n    user = "u"\n    password = "p"\n    realm = "ws"\n  }`,
      ),
    });
    const refused = await connect(gw.wsUrl('/echo')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RefusedUpgrade);
    expect(refused).toMatchObject({ status: 401, headers: { 'www-authenticate': 'Basic realm="ws"', connection: 'close' } });
    const wrong = await connect(gw.wsUrl('/echo'), { headers: { authorization: basic('u', 'nope') } }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ status: 401 });
    expect(backend.upgrades).toEqual([]);
    expect(accessRecords(gw).map((r) => [r.status, r.error_type])).toEqual([
      [401, 'basic_auth_credentials_missing'],
      [401, 'basic_auth'],
    ]);

    const client = await connect(gw.wsUrl('/echo'), { headers: { authorization: basic('u', 'p') } });
    client.socket.send('authorised');
    expect(await client.next()).toBe('authorised');
    // The client's credentials for the gateway stay at the gateway, as for plain proxying.
    expect(backend.upgrades[0]?.headers.authorization).toBeUndefined();
    expect(accessRecords(gw).at(-1)).toMatchObject({ status: 101, auth_user: 'u' });
  });

  it("passes the backend's refusal of the handshake on as its HTTP answer", async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`) });
    const refused = await connect(gw.wsUrl('/refuse')).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, body: 'nope' });
    await expect.poll(() => accessRecords(gw).at(-1)).toMatchObject({ status: 403 });
  });

  it('answers 502 when the backend cannot be reached, before upgrading', async () => {
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "http://127.0.0.1:1/**"\n      websockets = true\n    }\n  }`) });
    const refused = await connect(gw.wsUrl('/echo')).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 502 });
    expect(accessRecords(gw).at(-1)).toMatchObject({ status: 502, error_type: 'backend' });
    expect(backendRecords(gw).at(-1)).toMatchObject({ status: null, error_type: 'backend' });
  });

  it('serves an upgrade to an endpoint without websockets, or another protocol, as plain HTTP', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "${backend.origin}/**"\n    }\n  }`) });
    const refused = await connect(gw.wsUrl('/echo')).catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 200, headers: { connection: 'close' } });
    const h2c = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(gw.url('/h2c'), { headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': '' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(h2c).toEqual({ status: 200, body: JSON.stringify({ method: 'GET', url: '/h2c', upgrade: null }) });
    expect(backend.upgrades).toEqual([]);
  });

  it('refuses a handshake the client side could not complete (400), without contacting the backend', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`) });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(gw.url('/echo'), { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect(backend.upgrades).toEqual([]);
  });

  it('on a guarded route, checks the handshake and the body once the access controls passed (401 first)', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({
      'portico.hcl': serverOn(
        `  endpoint "/**" {\n    access_control = ["ba"]\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`,
        `  basic_auth "ba" {\n    user = "u"\n    password = "p"\n  }`,
      ),
    });
    const send = (headers: Record<string, string>, body?: string): Promise<number> =>
      new Promise<number>((resolve, reject) => {
        const req = request(gw.url('/echo'), { method: body === undefined ? 'GET' : 'POST', headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    // No Sec-WebSocket-Key, then a body: without credentials both are refused by the control.
    expect(await send({})).toBe(401);
    expect(await send({ 'content-length': '5' }, 'hello')).toBe(401);
    expect(await send({ authorization: basic('u', 'p') })).toBe(400);
    expect(await send({ authorization: basic('u', 'p'), 'content-length': '5' }, 'hello')).toBe(400);
    expect(backend.upgrades).toEqual([]);
  });

  it('logs a client that left before its handshake was answered as a client_request error, and closes the backend side', async () => {
    const backend = await startWsBackend();
    const real = createEndpointHandler();
    // The client's connection drops once the endpoint got the backend's 101, before the gateway writes its answer.
    const leaving: EndpointHandler = {
      guard: (ctx) => real.guard(ctx),
      async handle(ctx) {
        const response = await real.handle(ctx);
        ctx.incoming.socket.destroy();
        return response;
      },
    };
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`) }, { endpointHandler: leaving });
    const failed = await connect(gw.wsUrl('/echo')).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).not.toBeInstanceOf(RefusedUpgrade);
    expect(backend.upgrades).toHaveLength(1);
    await expect.poll(() => accessRecords(gw)).toEqual([expect.objectContaining({ status: 400, error_type: 'client_request', message: 'client closed the connection before the websocket handshake was answered' })]);
    await expect.poll(() => backend.closes).toHaveLength(1);
  });

  it('closes open connections with 1001 when the gateway stops after the shutdown deadline', async () => {
    const backend = await startWsBackend();
    const gw = await startWsGateway({ 'portico.hcl': serverOn(`  endpoint "/**" {\n    proxy {\n      url = "${backend.origin}/**"\n      websockets = true\n    }\n  }`) }, { shutdownTimeoutMs: 1500 });
    const client = await connect(gw.wsUrl('/echo'));
    const stopped = gw.server.stop();
    // Until the deadline an open connection still relays; then it is closed.
    client.socket.send('while stopping');
    expect(await client.next()).toBe('while stopping');
    expect(await client.closed).toEqual({ code: 1001, reason: 'gateway shutting down' });
    await stopped;
    await expect.poll(() => backend.closes).toEqual([{ code: 1001, reason: 'gateway shutting down' }]);
  });
});
