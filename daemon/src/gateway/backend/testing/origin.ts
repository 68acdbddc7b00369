import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer, type Http2SecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { TestCertificates } from './certificates.js';

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  /** SNI the client sent (TLS only). */
  readonly servername: string | null;
  readonly httpVersion: string;
}

/** A real origin server on a free loopback port that counts its connections. */
export interface TestOrigin {
  readonly url: string;
  readonly port: number;
  readonly requests: SeenRequest[];
  /** Connections accepted so far. */
  readonly connections: () => number;
  /** Connections open right now. */
  readonly open: () => number;
  /** The most connections open at once. */
  readonly maxOpen: () => number;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** HTTP, or HTTPS with `tls`. */
export async function startOrigin(handler: Handler, options: { tls?: TestCertificates } = {}): Promise<TestOrigin> {
  const requests: SeenRequest[] = [];
  const wrapped: Handler = (req, res) => {
    requests.push(seen(req));
    handler(req, res);
  };
  const server: Server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, wrapped) : createHttpServer(wrapped);
  return listen(server, options.tls ? 'https' : 'http', requests, options.tls ? 'secureConnection' : 'connection');
}

/** An HTTP/2-only TLS origin (allowHTTP1 false): an HTTP/1.1 client cannot talk to it. */
export async function startH2Origin(tls: TestCertificates, handler: (req: Http2ServerRequest, res: Http2ServerResponse) => void): Promise<TestOrigin> {
  const requests: SeenRequest[] = [];
  const server: Http2SecureServer = createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: false }, (req, res) => {
    requests.push(seen(req as unknown as IncomingMessage));
    handler(req, res);
  });
  return listen(server, 'https', requests, 'secureConnection');
}

async function listen(server: Server | Http2SecureServer, scheme: string, requests: SeenRequest[], event: 'connection' | 'secureConnection'): Promise<TestOrigin> {
  let connections = 0;
  let open = 0;
  let maxOpen = 0;
  const sockets = new Set<Socket>();
  server.on(event, (socket: Socket) => {
    connections++;
    open++;
    maxOpen = Math.max(maxOpen, open);
    sockets.add(socket);
    socket.once('close', () => {
      open--;
      sockets.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    open: () => open,
    maxOpen: () => maxOpen,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function seen(req: IncomingMessage): SeenRequest {
  const socket = req.socket as Partial<TLSSocket>;
  const servername = typeof socket.servername === 'string' ? socket.servername : null;
  return { method: req.method ?? '', path: req.url ?? '', headers: req.headers, servername, httpVersion: req.httpVersion };
}
