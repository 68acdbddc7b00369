import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { startDaemon, type DaemonHandle } from './harness.js';

// Websockets through the daemon's gateway: a real `ws` client, the gateway, a real `ws` backend.
const dir = mkdtempSync(join(tmpdir(), 'portico-gateway-websockets-'));
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

interface Opened {
  readonly socket: WebSocket;
  readonly headers: IncomingHttpHeaders;
  next(): Promise<string>;
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** Opens a websocket; rejects with `{ status, headers }` when the gateway answers without upgrading. */
function open(url: string, headers: Record<string, string> = {}): Promise<Opened> {
  const socket = new WebSocket(url, { headers });
  const queue: string[] = [];
  const waiting: ((m: string) => void)[] = [];
  socket.on('message', (data: Buffer) => {
    const waiter = waiting.shift();
    if (waiter) waiter(data.toString());
    else queue.push(data.toString());
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  return new Promise((resolve, reject) => {
    let answer: IncomingHttpHeaders = {};
    socket.once('upgrade', (res) => (answer = res.headers));
    socket.once('open', () => resolve({ socket, headers: answer, closed, next: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((r) => waiting.push(r))) }));
    socket.once('unexpected-response', (_req, res) => {
      res.resume();
      reject({ status: res.statusCode, headers: res.headers });
    });
    socket.once('error', reject);
  });
}

describe('websockets through the gateway', () => {
  let backend: Server;
  let handshakes: IncomingHttpHeaders[];
  let daemon: DaemonHandle;

  beforeAll(async () => {
    handshakes = [];
    const wss = new WebSocketServer({ noServer: true });
    backend = createServer((_req, res) => res.end('plain'));
    backend.on('upgrade', (req, socket, head) => {
      handshakes.push(req.headers);
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.send(`welcome ${req.url ?? ''}`);
        ws.on('message', (data, isBinary) => {
          if (data.toString() === 'bye') ws.close(4000, 'asked to');
          else ws.send(data, { binary: isBinary });
        });
      });
    });
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    const file = join(dir, 'gateway.hcl');
    writeFileSync(
      file,
      `server {
  hosts = ["*:\${env.PORTICO_GATEWAY_PORT}"]
  endpoint "/chat/**" {
    proxy {
      backend = "chat"
      websockets = true
    }
  }
  endpoint "/private/**" {
    access_control = ["members"]
    proxy {
      backend = "chat"
      url = "/members/**"
      websockets {
        timeout = "1m"
        set_request_headers = { x-member = request.context.members.user }
        set_response_headers = { x-gateway = "portico" }
      }
    }
  }
}
definitions {
  backend "chat" {
    origin = "${origin}"
  }
  basic_auth "members" {
    user = "ada"
    password = "lovelace"
    realm = "members"
  }
}
defaults {
  environment_variables = { PORTICO_GATEWAY_PORT = "8080" }
}
settings {
  log_format = "json"
}
`,
    );
    daemon = await startDaemon({ args: ['--mode', 'gateway', '-f', file], env: { PORTICO_SHUTDOWN_DELAY: '100ms', PORTICO_SHUTDOWN_TIMEOUT: '500ms' } });
  });

  afterAll(async () => {
    await daemon?.dispose();
    backend?.closeAllConnections();
    await new Promise((r) => backend?.close(r) ?? r(null));
    rmSync(dir, { recursive: true, force: true });
  });

  const wsUrl = (path: string): string => `${daemon.gatewayUrl.replace(/^http/, 'ws')}${path}`;

  it('relays messages both ways and passes the backend close code on', async () => {
    const chat = await open(wsUrl('/chat/room-1'));
    expect(await chat.next()).toBe('welcome /chat/room-1');
    chat.socket.send('hi there');
    expect(await chat.next()).toBe('hi there');
    chat.socket.send('bye');
    expect(await chat.closed).toEqual({ code: 4000, reason: 'asked to' });
    // One access line at the upgrade (101) and the backend's line for the handshake.
    await expect.poll(() => daemon.logs()).toMatch(/"type":"gateway_access".*"url":"http:\/\/127\.0\.0\.1:\d+\/chat\/room-1".*"status":101/);
    expect(daemon.logs()).toMatch(/"type":"gateway_backend".*"backend":"chat".*"status":101/);
  });

  it('guards a websocket endpoint with basic_auth: 401 and the challenge without credentials, the backend never asked', async () => {
    const before = handshakes.length;
    await expect(open(wsUrl('/private/room'))).rejects.toMatchObject({ status: 401, headers: { 'www-authenticate': 'Basic realm="members"' } });
    await expect(open(wsUrl('/private/room'), { authorization: basic('ada', 'wrong') })).rejects.toMatchObject({ status: 401 });
    expect(handshakes.length).toBe(before);

    const member = await open(wsUrl('/private/room'), { authorization: basic('ada', 'lovelace') });
    expect(member.headers['x-gateway']).toBe('portico');
    expect(await member.next()).toBe('welcome /members/room');
    expect(handshakes.at(-1)).toMatchObject({ 'x-member': 'ada' });
    expect(handshakes.at(-1)?.authorization).toBeUndefined();
    member.socket.send('secret plans');
    expect(await member.next()).toBe('secret plans');
    member.socket.close(1000, 'done');
    expect(await member.closed).toMatchObject({ code: 1000 });
    await expect.poll(() => daemon.logs()).toMatch(/"type":"gateway_access".*"status":101.*"auth_user":"ada"/);
  });

  it('serves plain HTTP on the same endpoint', async () => {
    const res = await fetch(`${daemon.gatewayUrl}/chat/room-1`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('plain');
  });

  // Last: it stops the daemon.
  it('closes open websockets with 1001 when the daemon stops after the shutdown deadline', async () => {
    const chat = await open(wsUrl('/chat/last'));
    expect(await chat.next()).toBe('welcome /chat/last');
    const exited = daemon.stop('SIGTERM', 10_000);
    expect(await chat.closed).toEqual({ code: 1001, reason: 'gateway shutting down' });
    expect(await exited).toBe(0);
  });
});
