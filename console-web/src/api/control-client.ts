import type { AppRouter } from '@portico/daemon/control';
import { createTRPCClient, createWSClient, httpBatchLink, splitLink, wsLink, type TRPCClient } from '@trpc/client';
import { controlSocketUrl } from './control-url';
import { reconnectDelayMs } from './reconnect-delay';

export type ControlClient = TRPCClient<AppRouter>;

export interface ControlConnection {
  client: ControlClient;
  /** Closes the WebSocket for good (logout); subscriptions complete. */
  close(): Promise<void>;
}

export interface ControlConnectionOptions {
  token: string;
  /** Any HTTP call answered 401: the token is no longer accepted. */
  onUnauthorized(): void;
  /** The WebSocket closed (or failed to open); the client is already retrying. */
  onSocketClose(): void;
  /** Defaults to the page's own origin, where the daemon serves both the dashboard and /trpc. */
  origin?: string;
}

/** One typed client per login: queries over HTTP (batched), subscriptions over one WebSocket. */
export function connectControl({ token, onUnauthorized, onSocketClose, origin = location.origin }: ControlConnectionOptions): ControlConnection {
  const wsClient = createWSClient({
    url: controlSocketUrl(origin),
    connectionParams: () => ({ token }),
    retryDelayMs: reconnectDelayMs,
    // A daemon that hangs (or a dropped tunnel) keeps the socket open; pings notice it, so the page turns stale.
    keepAlive: { enabled: true, intervalMs: 10_000, pongTimeoutMs: 5_000 },
    onClose: onSocketClose,
  });
  const client = createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === 'subscription',
        true: wsLink<AppRouter>({ client: wsClient }),
        false: httpBatchLink<AppRouter>({
          url: `${origin}/trpc`,
          headers: () => ({ Authorization: `Bearer ${token}` }),
          fetch: fetchReporting401(onUnauthorized),
        }),
      }),
    ],
  });
  return { client, close: () => wsClient.close() };
}

// The 401 body is not a tRPC error shape, so the status code is the reliable signal.
function fetchReporting401(onUnauthorized: () => void) {
  return async function fetchWithAuthCheck(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if (init?.signal?.aborted) throw error;
      // The browser's "Failed to fetch" says nothing to an operator; a view shows this instead.
      throw new TypeError(UNREACHABLE, { cause: error });
    }
    if (response.status === 401) onUnauthorized();
    return response;
  };
}

/** What a call says when the daemon cannot be reached (the shell's notice says the rest). */
export const UNREACHABLE = 'The daemon is not reachable; this shows the last data received and updates by itself when it is back.';
