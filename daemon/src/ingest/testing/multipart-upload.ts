import { request } from 'node:http';

export interface StreamedUploadOptions {
  /** The files:async URL. */
  url: string;
  headers?: Record<string, string>;
  /** How many bytes the `file` part holds; they are generated as they are sent, never held whole. */
  fileBytes: number;
  filename?: string;
  /** Repeated to fill the file part (default: CSV rows). */
  pattern?: Buffer;
  /** The file part's first bytes (a CSV header line), sent before the `fileBytes` of the pattern. */
  fileHead?: string;
  /** Text fields, sent before the file part. */
  fields?: Record<string, string>;
  /** Sends Content-Length (default: chunked, so only the streaming check can stop it). */
  contentLength?: boolean;
  /** Drops the connection after this many bytes of the file part (a client that goes away). */
  abortAfterBytes?: number;
  /** Awaited before that drop, the connection open and idle (to see what the server holds meanwhile). */
  beforeAbort?: () => Promise<void>;
}

export type StreamedUploadResult = { status: number; body: any; sentBytes: number } | { aborted: true; sentBytes: number };

const BOUNDARY = 'portico-test-boundary-7f3a';
const CHUNK = 64 * 1024;
const CSV_ROWS = Buffer.from('1,2024-01-02,some text here\n'.repeat(2048));

/**
 * A multipart/form-data upload sent as a stream over node:http, with backpressure, so a test can
 * send many large uploads (or stop one half way) without holding their bodies.
 */
export function sendStreamedUpload(opts: StreamedUploadOptions): Promise<StreamedUploadResult> {
  const fields = Object.entries(opts.fields ?? {})
    .map(([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)
    .join('');
  const head = Buffer.from(`${fields}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${opts.filename ?? 'big.csv'}"\r\nContent-Type: text/csv\r\n\r\n${opts.fileHead ?? ''}`);
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const pattern = opts.pattern ?? CSV_ROWS;
  const filler = Buffer.alloc(CHUNK);
  for (let i = 0; i < CHUNK; i += pattern.length) pattern.copy(filler, i);
  const headers: Record<string, string> = { 'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`, ...opts.headers };
  if (opts.contentLength) headers['Content-Length'] = String(head.length + opts.fileBytes + tail.length);

  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = request(opts.url, { method: 'POST', headers }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* keep the text */
        }
        resolve({ status: res.statusCode ?? 0, body, sentBytes: sent });
      });
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (opts.abortAfterBytes !== undefined && sent >= opts.abortAfterBytes) resolve({ aborted: true, sentBytes: sent });
      else if (!answered) reject(error);
    });
    const write = (): void => {
      while (!answered && sent < opts.fileBytes) {
        if (opts.abortAfterBytes !== undefined && sent >= opts.abortAfterBytes) {
          Promise.resolve(opts.beforeAbort?.()).then(
            () => {
              req.destroy();
              resolve({ aborted: true, sentBytes: sent });
            },
            reject,
          );
          return;
        }
        const n = Math.min(CHUNK, opts.fileBytes - sent);
        sent += n;
        if (!req.write(n === CHUNK ? filler : filler.subarray(0, n))) {
          req.once('drain', write);
          return;
        }
      }
      if (!answered) req.end(tail);
    };
    req.write(head);
    write();
  });
}
