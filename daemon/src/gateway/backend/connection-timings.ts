/**
 * DNS, TCP and TLS timings of backend connections for the log line. The connector measures
 * each socket it opens; undici's `undici:client:sendHeaders` diagnostics channel tells which
 * socket a request went out on, and the first request on a socket gets its connect timings
 * (a reused connection spent no time connecting: its fields stay null).
 *
 * The channel is listened to only while there is something to learn from it: a new socket
 * whose first request has not gone out yet, or a backend that may speak h2 (the protocol of
 * each request's connection). With a subscriber undici publishes a message for every request
 * of the process, and each request here waited a microtask for it; between new connections to
 * HTTP/1.1 backends there is none, and a request is told at once: a reused connection, `http/1.1`.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import type { buildConnector } from 'undici';

export interface ConnectTimings {
  /** Null when no lookup happened (an IP address). */
  dns: number | null;
  tcp: number | null;
  /** Null for plain HTTP. */
  tls: number | null;
}

interface SocketRecord {
  readonly timings: ConnectTimings;
  /** Whether a request already took these timings. */
  claimed: boolean;
}

const SEND_HEADERS = 'undici:client:sendHeaders';
const sockets = new WeakMap<object, SocketRecord>();

/** `h2` or `http/1.1`, as negotiated on the socket. */
type SocketListener = (timings: ConnectTimings | null, protocol: string) => void;
let waiting: SocketListener | null = null;

/** Reasons to listen: new sockets not yet claimed, and live transports that may speak h2. */
let holds = 0;

function onSendHeaders(message: unknown): void {
  const socket = (message as { socket: object & { alpnProtocol?: unknown } }).socket;
  const record = sockets.get(socket);
  const listener = waiting;
  waiting = null;
  const protocol = socket.alpnProtocol === 'h2' ? 'h2' : 'http/1.1';
  if (!record || record.claimed) {
    listener?.(null, protocol);
    return;
  }
  record.claimed = true;
  release();
  listener?.(record.timings, protocol);
}

/** One more reason to listen to the channel (subscribes on the first). */
function hold(): void {
  if (holds++ === 0) subscribe(SEND_HEADERS, onSendHeaders);
}

function release(): void {
  if (holds > 0 && --holds === 0) unsubscribe(SEND_HEADERS, onSendHeaders);
}

/**
 * Wraps an undici connector so that every socket it opens records how long each step took.
 * With `http2`, the channel is listened to for as long as the connector is in use (until
 * `close()`), for the protocol of every request.
 */
export function timedConnector(connect: buildConnector.connector, { http2 = false }: { http2?: boolean } = {}): buildConnector.connector & { close(): void } {
  let open = http2;
  if (open) hold();
  const timedConnect = function timedConnect(options: buildConnector.Options, callback: buildConnector.Callback): void {
    const start = performance.now();
    const record: SocketRecord = { timings: { dns: null, tcp: null, tls: null }, claimed: false };
    let lookedUpAt = start;
    let connectedAt = start;
    // undici's connector returns the socket (its type says void): needed before it connects.
    const socket = (connect as unknown as (o: buildConnector.Options, cb: buildConnector.Callback) => Socket | undefined)(options, callback);
    if (!socket) return;
    sockets.set(socket, record);
    hold();
    socket.once('close', () => {
      if (record.claimed) return;
      // Closed before any request went out on it: nothing to wait for.
      record.claimed = true;
      release();
    });
    socket.once('lookup', () => {
      lookedUpAt = performance.now();
      record.timings.dns = round(lookedUpAt - start);
    });
    socket.once('connect', () => {
      connectedAt = performance.now();
      record.timings.tcp = round(connectedAt - lookedUpAt);
    });
    socket.once('secureConnect', () => {
      record.timings.tls = round(performance.now() - connectedAt);
    });
  };
  return Object.assign(timedConnect as buildConnector.connector, {
    close(): void {
      if (!open) return;
      open = false;
      release();
    },
  });
}

/**
 * Call from a dispatch handler's `onConnect` (or `onRequestStart`): undici then writes that request's
 * headers synchronously and publishes `sendHeaders`, which hands the listener the
 * connection's timings (null for a reused or unmeasured connection). When nothing listens to
 * the channel, no new connection and no h2 backend is about: the listener is told at once.
 */
export function awaitSocketTimings(listener: SocketListener): void {
  if (holds === 0) {
    listener(null, 'http/1.1');
    return;
  }
  waiting = listener;
  // Anything not claimed in this synchronous step belongs to no request of ours.
  queueMicrotask(() => {
    if (waiting === listener) waiting = null;
  });
}

export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
