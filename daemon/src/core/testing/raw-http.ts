// One HTTP request sent exactly as written, for tests of what a server does with odd paths.
import { request as httpRequest } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  readonly text: string;
}

/** One HTTP/1.1 request with the path sent exactly as given (no URL normalisation, no decompression). */
export function send(base: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  const target = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: target.hostname, port: target.port, method: init.method ?? 'GET', path, headers: init.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
