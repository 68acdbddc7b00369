/**
 * Relays messages between the client's and the backend's websocket until either side closes;
 * the close code and reason go to the other side. Each leg answers its own pings (ws does).
 */
import WebSocket from 'ws';
import type { CloseInfo } from './backend-leg.js';

/** A leg whose peer is this far behind stops being read until it catches up. */
const HIGH_WATER_BYTES = 1 << 20;
/** How long a side the gateway closes gets to answer the close frame before its socket is destroyed. */
export const CLOSE_GRACE_MS = 1000;

export interface RelayOptions {
  /** Closes both sides (1001) this long after the relay started; null for no limit. */
  readonly timeoutMs: number | null;
  /** Called once, when both sides are closed. */
  readonly onEnd: () => void;
}

export interface Relay {
  /** Closes both sides with this code; sockets that do not answer within the grace are destroyed. */
  close(code: number, reason: string): void;
}

export function relayFrames(client: WebSocket, backend: WebSocket, backendClosed: CloseInfo | null, { timeoutMs, onEnd }: RelayOptions): Relay {
  let open = 2;
  let timer: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  const ended = (): void => {
    if (--open > 0) return;
    clearTimeout(timer);
    clearTimeout(grace);
    onEnd();
  };
  const close = (code: number, reason: string): void => {
    clearTimeout(timer);
    for (const side of [client, backend]) if (side.readyState === WebSocket.OPEN) side.close(code, reason);
    grace ??= setTimeout(() => [client, backend].forEach((side) => side.terminate()), CLOSE_GRACE_MS);
  };
  pipe(client, backend, ended);
  if (backendClosed) {
    ended();
    passClose(client, backendClosed.code, backendClosed.reason);
  } else {
    pipe(backend, client, ended);
    backend.resume();
  }
  if (timeoutMs !== null) timer = setTimeout(() => close(1001, 'websocket timeout'), timeoutMs);
  return { close };
}

function pipe(from: WebSocket, to: WebSocket, ended: () => void): void {
  from.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
    if (to.readyState !== WebSocket.OPEN) return;
    to.send(data, { binary: isBinary }, () => {
      if (from.isPaused && to.bufferedAmount < HIGH_WATER_BYTES) from.resume();
    });
    if (to.bufferedAmount >= HIGH_WATER_BYTES) from.pause();
  });
  // An error is followed by 'close' (1006), which ends the other side too.
  from.on('error', () => undefined);
  from.once('close', (code: number, reason: Buffer) => {
    passClose(to, code, reason);
    ended();
  });
}

/** Codes a close frame may carry (RFC 6455 7.4); 1005 means the frame had none, 1006 that there was no frame. */
function sendable(code: number): boolean {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999);
}

function passClose(to: WebSocket, code: number, reason: Buffer): void {
  if (to.readyState === WebSocket.CLOSED) return;
  if (to.readyState === WebSocket.OPEN && sendable(code)) to.close(code, reason);
  else if (to.readyState === WebSocket.OPEN && code === 1005) to.close();
  // No close frame came (the connection broke): the other side sees its connection break too.
  else to.terminate();
}
