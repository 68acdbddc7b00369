/**
 * Test support: a client that writes raw bytes on a TCP connection (what no HTTP client
 * library would send: no version, huge heads, headers dripping in) and reports what came
 * back once the server closed the connection.
 */
import { connect, type Socket } from 'node:net';

export interface RawReply {
  /** Everything received, as latin1. */
  readonly text: string;
  /** The status of the first response, or null when nothing came back. */
  readonly status: number | null;
}

export interface RawOptions {
  /** Written again every `everyMs` until the connection closes (a slow client). */
  readonly drip?: { readonly text: string; readonly everyMs: number };
  /** Give up (and fail) when the server has not closed the connection after this long; default 10 s. */
  readonly timeoutMs?: number;
}

/** Connects to the port of `base`, writes `bytes`, and resolves when the server closed the connection. */
export function rawExchange(base: string, bytes: string | Buffer, options: RawOptions = {}): Promise<RawReply> {
  const port = Number(new URL(base).port);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port }, () => {
      socket.write(bytes);
      if (options.drip) {
        const { text, everyMs } = options.drip;
        const timer = setInterval(() => socket.writable && socket.write(text), everyMs);
        socket.once('close', () => clearInterval(timer));
      }
    });
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${options.timeoutMs ?? 10_000}ms; received ${JSON.stringify(Buffer.concat(chunks).toString('latin1').slice(0, 200))}`));
    }, options.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A reset after the answer still counts as closed; what was received is kept.
    socket.on('error', () => undefined);
    socket.once('close', () => {
      clearTimeout(limit);
      const text = Buffer.concat(chunks).toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ text, status: status ? Number(status[1]) : null });
    });
  });
}

/** The value of a header in the first response of `text` (case-insensitive name), or undefined. */
export function rawHeader(text: string, name: string): string | undefined {
  const head = text.split('\r\n\r\n')[0] ?? '';
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

export interface KeptConnection {
  readonly socket: Socket;
  /** Sends a keep-alive GET and resolves with the answer's status line, or null when the connection closed first. */
  ask(): Promise<string | null>;
  readonly closed: Promise<void>;
}

/** A keep-alive connection to 127.0.0.1:`port` whose `ask` sends `GET /` and waits for an answer whose body ends in `ok`. */
export function openKept(port: number): Promise<KeptConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let buffered = '';
    let waiting: ((line: string | null) => void) | null = null;
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      if (waiting && buffered.endsWith('ok')) {
        const line = buffered.split('\r\n')[0] ?? '';
        buffered = '';
        waiting(line);
        waiting = null;
      }
    });
    socket.on('error', () => undefined);
    const closed = new Promise<void>((done) =>
      socket.once('close', () => {
        waiting?.(null);
        done();
      }),
    );
    socket.once('connect', () =>
      resolve({
        socket,
        closed,
        ask: () =>
          new Promise((answer) => {
            if (socket.destroyed) return answer(null);
            waiting = answer;
            socket.write('GET / HTTP/1.1\r\nHost: a\r\n\r\n');
          }),
      }),
    );
    socket.once('error', reject);
  });
}
