import { createTRPCClient, createWSClient, httpBatchLink, wsLink, type TRPCWebSocketClient } from '@trpc/client';
import type { AppRouter, ConfigStatus, DaemonEvent, SystemStatus } from '@portico/daemon/control';
import WebSocket from 'ws';
import { type ControlProblem, toControlProblem } from './control-problem.js';
import type { ControlSource, EventObserver, LinkState } from './control-source.js';
import { controlEndpoints } from './endpoints.js';

export interface ControlClientOptions {
  url: string;
  token: string;
  /** Reconnect delay per attempt; short by default so a restarted daemon is picked up quickly. */
  retryDelayMs?: (attempt: number) => number;
}

const defaultRetryDelay = (attempt: number): number => Math.min(250 * 2 ** attempt, 3_000);

/**
 * The control API over tRPC: queries over HTTP (so a refused token shows up as a plain 401
 * at start), subscriptions over one WebSocket that is opened only when first needed.
 */
export function createControlClient({ url, token, retryDelayMs = defaultRetryDelay }: ControlClientOptions): ControlSource {
  const endpoints = controlEndpoints(url);
  const http = createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: endpoints.httpUrl, headers: { authorization: `Bearer ${token}` } })],
  });

  let socket: { ws: TRPCWebSocketClient; client: ReturnType<typeof createTRPCClient<AppRouter>> } | null = null;
  let everOpen = false;
  // The server accepts the socket and then rejects the token, so a refusal arrives as a call error.
  let refused: LinkState | null = null;
  let linkState: LinkState = { kind: 'connecting' };
  const linkListeners = new Set<(state: LinkState) => void>();

  function setLink(state: LinkState): void {
    linkState = state;
    for (const listener of linkListeners) listener(state);
  }

  function refuse(problem: ControlProblem): void {
    refused = { kind: 'refused', problem };
    setLink(refused);
  }

  function live(): NonNullable<typeof socket> {
    if (socket) return socket;
    const ws = createWSClient({
      url: endpoints.wsUrl,
      // Node 20 has no global WebSocket; `ws` implements the same interface.
      WebSocket: socketNoticingRefusal(refuse) as unknown as typeof globalThis.WebSocket,
      connectionParams: { token },
      retryDelayMs,
      // A daemon that hangs (or a dropped SSH tunnel) keeps the socket open; pings notice it.
      keepAlive: { enabled: true, intervalMs: 10_000, pongTimeoutMs: 5_000 },
    });
    ws.connectionState.subscribe({
      next(state) {
        if (refused) return;
        if (state.state === 'pending') {
          everOpen = true;
          setLink({ kind: 'open' });
          return;
        }
        const problem = state.error ? toControlProblem(state.error) : null;
        if (problem?.code === 'unauthorized') setLink({ kind: 'refused', problem });
        else if (everOpen || problem) setLink({ kind: 'lost', problem });
        else setLink({ kind: 'connecting' });
      },
    });
    socket = { ws, client: createTRPCClient<AppRouter>({ links: [wsLink<AppRouter>({ client: ws })] }) };
    return socket;
  }

  return {
    endpoints,
    api: http,
    get subscriptions() {
      return live().client;
    },
    fetchStatus(signal?: AbortSignal): Promise<SystemStatus> {
      return http.system.status.query(undefined, signal ? { signal } : {});
    },
    fetchConfigStatus(signal?: AbortSignal): Promise<ConfigStatus> {
      return http.config.status.query(undefined, signal ? { signal } : {});
    },
    subscribeEvents(fromEventId: string | null, observer: EventObserver): () => void {
      const subscription = live().client.system.events.subscribe(fromEventId ? { lastEventId: fromEventId } : undefined, {
        onData(tracked: { id: string; data: DaemonEvent }) {
          observer.onEvent(tracked.data);
        },
        onError(error: unknown) {
          const problem = toControlProblem(error);
          if (problem.code === 'unauthorized') refuse(problem);
          observer.onError(problem);
        },
      });
      return () => subscription.unsubscribe();
    },
    watchLink(listener: (state: LinkState) => void): () => void {
      linkListeners.add(listener);
      listener(linkState);
      return () => linkListeners.delete(listener);
    },
    async close(): Promise<void> {
      linkListeners.clear();
      const current = socket;
      socket = null;
      await current?.ws.close();
    },
  };
}

/**
 * A `ws` WebSocket that notices the server refusing the token. The server answers a bad token
 * with an error for no call (`"id": null`) and closes the socket; tRPC's client drops that
 * message, and a subscription sent just after it gets no answer at all (the socket is gone), so
 * without this a refusal could look like a lost link, retried for ever.
 */
function socketNoticingRefusal(onRefused: (problem: ControlProblem) => void): new (url: string) => WebSocket {
  return class extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
        if (isBinary) return;
        const text = data.toString();
        if (!text.startsWith('{"id":null')) return;
        try {
          const message = JSON.parse(text) as { id: null; error?: unknown };
          if (message.error === undefined) return;
          const problem = toControlProblem(message.error);
          if (problem.code === 'unauthorized') onRefused(problem);
        } catch {
          // Not JSON: tRPC's own handler reports it.
        }
      });
    }
  };
}

