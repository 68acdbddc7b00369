import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestTls {
  dir: string;
  caFile: string;
  ca: string;
  cert: string;
  key: string;
  dispose(): void;
}

/** A throwaway CA and a server certificate for 127.0.0.1 and localhost, made with openssl. */
export function makeTestTls(): TestTls {
  const dir = mkdtempSync(join(tmpdir(), 'portico-tls-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Portico Test CA');
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n');
  run('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'ext.cnf');
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  return { dir, caFile: join(dir, 'ca.pem'), ca: read('ca.pem'), cert: read('server.pem'), key: read('server.key'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ReceivedCallback {
  headers: IncomingHttpHeaders;
  body: Buffer;
  method: string;
  path: string;
  at: number;
}

export interface Reply {
  status: number;
  body?: string;
  /** Answer only after this long (a slow receiver). */
  delayMs?: number;
  /** Answer only once this settles (a receiver the test releases). */
  after?: Promise<unknown>;
}

export interface TestReceiver {
  url: string;
  received: ReceivedCallback[];
  /** Every TLS connection accepted, in order: whether it resumed an earlier TLS session. */
  connections: Array<{ resumed: boolean }>;
  /** Requests read whose answer has not been sent yet. */
  pending: number;
  /** Decides each answer; default 200. */
  reply: (req: ReceivedCallback, index: number) => Reply;
  /** Drops every open connection (clients must connect again). */
  closeConnections(): void;
  close(): Promise<void>;
}

/** An HTTPS receiver on 127.0.0.1 that records every request. */
export async function startReceiver(tls: TestTls): Promise<TestReceiver> {
  const receiver: TestReceiver = {
    url: '',
    received: [],
    connections: [],
    pending: 0,
    reply: () => ({ status: 200, body: 'ok' }),
    closeConnections: () => {},
    close: async () => {},
  };
  const server: Server = createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: ReceivedCallback = { headers: req.headers, body: Buffer.concat(chunks), method: req.method ?? '', path: req.url ?? '', at: Date.now() };
      const index = receiver.received.push(got) - 1;
      receiver.pending += 1;
      const reply = receiver.reply(got, index);
      const send = () => {
        receiver.pending -= 1;
        if (!res.destroyed) res.writeHead(reply.status, { 'Content-Type': 'text/plain' }).end(reply.body ?? '');
      };
      if (reply.after) void reply.after.then(send, send);
      else if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  server.on('secureConnection', (socket) => receiver.connections.push({ resumed: socket.isSessionReused() }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.closeConnections = () => server.closeAllConnections();
  receiver.close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return receiver;
}
