/**
 * DNS, TCP and TLS timings of backend connections for the log line. The connector measures
 * each socket it opens; undici's `undici:client:sendHeaders` diagnostics channel tells which
 * socket a request went out on, and the first request on a socket gets its connect timings
 * (a reused connection spent no time connecting: its fields stay null).
 */
import { subscribe } from 'node:diagnostics_channel';
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

const sockets = new WeakMap<object, SocketRecord>();

/** Wraps an undici connector so that every socket it opens records how long each step took. */
export function timedConnector(connect: buildConnector.connector): buildConnector.connector {
  return function timedConnect(options, callback) {
    const start = performance.now();
    const record: SocketRecord = { timings: { dns: null, tcp: null, tls: null }, claimed: false };
    let lookedUpAt = start;
    let connectedAt = start;
    // undici's connector returns the socket (its type says void): needed before it connects.
    const socket = (connect as unknown as (o: buildConnector.Options, cb: buildConnector.Callback) => Socket | undefined)(options, callback);
    if (!socket) return;
    sockets.set(socket, record);
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
}

/** `h2` or `http/1.1`, as negotiated on the socket. */
type SocketListener = (timings: ConnectTimings | null, protocol: string) => void;
let waiting: SocketListener | null = null;

subscribe('undici:client:sendHeaders', (message) => {
  const listener = waiting;
  if (!listener) return;
  waiting = null;
  const socket = (message as { socket: object & { alpnProtocol?: unknown } }).socket;
  const protocol = socket.alpnProtocol === 'h2' ? 'h2' : 'http/1.1';
  const record = sockets.get(socket);
  if (!record || record.claimed) return listener(null, protocol);
  record.claimed = true;
  listener(record.timings, protocol);
});

/**
 * Call from a dispatch handler's `onRequestStart`: undici then writes that request's
 * headers synchronously and publishes `sendHeaders`, which hands the listener the
 * connection's timings (null for a reused or unmeasured connection).
 */
export function awaitSocketTimings(listener: SocketListener): void {
  waiting = listener;
  // Anything not claimed in this synchronous step belongs to no request of ours.
  queueMicrotask(() => {
    if (waiting === listener) waiting = null;
  });
}

export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
