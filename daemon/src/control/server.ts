import { TRPCError, type AnyTRPCRouter } from '@trpc/server';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { applyWSSHandler } from '@trpc/server/adapters/ws';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer } from 'ws';
import type { Logger } from '../core/logger.js';
import { bearerToken, tokenMatches } from './auth.js';
import { webDashboard } from './static-files.js';
import { internalErrorId, type ControlContext, type ControlServices } from './trpc.js';

export interface ControlServerOptions {
  host: string;
  port: number;
  token: string;
  services: ControlServices;
  /** The app router (main/app-router.ts); the control server itself knows no area. */
  router: AnyTRPCRouter;
  /** Folder of the built web dashboard; omitted, `/` answers 404. */
  webRoot?: string;
  logger?: Logger;
}

export interface ControlServer {
  /** `http://host:port` as actually bound (port 0 resolves to the real one). */
  url: string;
  port: number;
  close(): Promise<void>;
}

const UNAUTHORIZED_BODY = JSON.stringify({
  error: { code: 'UNAUTHORIZED', message: 'missing or wrong bearer token: send Authorization: Bearer <token> (the token is in <data dir>/control.token)' },
});

/** The control API (tRPC over HTTP and WebSocket on one port) plus the web dashboard. */
export async function startControlServer({ host, port, token, services, router, webRoot, logger }: ControlServerOptions): Promise<ControlServer> {
  const context: ControlContext = { services };
  // The caller saw only the id of an internal error; the log has the error under it.
  const onError = ({ error, path }: { error: TRPCError; path: string | undefined }): void => {
    if (error.code === 'INTERNAL_SERVER_ERROR') logger?.error('control API call failed', { path, error_id: internalErrorId(error), error: error.cause ?? error });
  };
  const trpcHandler = createHTTPHandler({
    router,
    basePath: '/trpc/',
    createContext: () => context,
    onError,
  });
  const serveWeb = webRoot ? webDashboard(webRoot) : null;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/trpc' || path.startsWith('/trpc/')) {
      if (!tokenMatches(bearerToken(req.headers.authorization), token)) {
        res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer realm="portico"' }).end(UNAUTHORIZED_BODY);
        return;
      }
      trpcHandler(req, res);
      return;
    }
    if (serveWeb) {
      serveWeb(req, res).catch((error: unknown) => {
        logger?.error('web dashboard request failed', { path, error });
        if (!res.headersSent) res.writeHead(500).end();
      });
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found\n');
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20 });
  const wsHandler = applyWSSHandler({
    wss,
    router,
    keepAlive: { enabled: true, pingMs: 15_000, pongWaitMs: 5_000 },
    onError,
    createContext: ({ req, info }) => {
      const params = info.connectionParams as Record<string, unknown> | null;
      const presented = typeof params?.token === 'string' ? params.token : bearerToken(req.headers.authorization);
      if (!tokenMatches(presented, token)) {
        throw new TRPCErrorUnauthorized();
      }
      return context;
    },
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/trpc' && path !== '/trpc/') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${bound}`,
    port: bound,
    async close() {
      // Tell consoles to reconnect (they will find the next daemon), then drop what is left.
      wsHandler.broadcastReconnectNotification();
      for (const client of wss.clients) client.close(1001, 'daemon stopping');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeIdleConnections();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      setTimeout(() => server.closeAllConnections(), 1000).unref();
      for (const client of wss.clients) client.terminate();
      await closed;
    },
  };
}

class TRPCErrorUnauthorized extends TRPCError {
  constructor() {
    super({ code: 'UNAUTHORIZED', message: 'missing or wrong token in the connection params' });
  }
}
