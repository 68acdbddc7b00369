import { request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startBackend, startEndpointGateway } from './testing/endpoint-gateway.js';

/** A backend answer streamed in chunks and ending with trailers, some of which must not be forwarded. */
function withTrailers(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain', trailer: 'x-checksum, grpc-status' });
  res.write('first part, ');
  setTimeout(() => {
    res.write('second part');
    res.addTrailers([
      ['X-Checksum', 'sha256=abc'],
      ['grpc-status', '0'],
      // Not to be forwarded as trailers (a Content-Length one undici refuses as a malformed answer).
      ['set-cookie', 'late=1'],
      ['host', 'elsewhere'],
    ]);
    res.end();
  }, 20);
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  trailers: Record<string, string | undefined>;
}

function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), trailers: res.trailers }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const PLAIN = (origin: string) => `
server {
  hosts = ["*:0"]
  endpoint "/stream" {
    proxy {
      backend = "b"
    }
  }
  endpoint "/general" {
    request "first" {
      backend = "b"
    }
    proxy {
      backend = "b"
    }
  }
  endpoint "/read" {
    proxy {
      backend = "b"
    }
    set_response_headers = {
      x-body = backend_responses.default.body
    }
  }
}
definitions {
  backend "b" { origin = "${origin}" }
}
`;

describe('response trailers', () => {
  it('a plain proxy route forwards the trailers that follow a streamed body, announced again, without forbidden fields', async () => {
    const backend = await startBackend((_req, res) => withTrailers(res));
    const gw = await startEndpointGateway(PLAIN(backend.origin));
    const res = await get(gw.url('/stream'));
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('first part, second part');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.headers['trailer']).toBe('x-checksum, grpc-status');
    expect(res.trailers).toEqual({ 'x-checksum': 'sha256=abc', 'grpc-status': '0' });
  });

  it('the general path (a request block beside the proxy) forwards them too', async () => {
    const backend = await startBackend((_req, res) => withTrailers(res));
    const gw = await startEndpointGateway(PLAIN(backend.origin));
    const res = await get(gw.url('/general'));
    expect(res.body.toString()).toBe('first part, second part');
    expect(res.trailers).toEqual({ 'x-checksum': 'sha256=abc', 'grpc-status': '0' });
    expect(backend.seen).toHaveLength(2);
  });

  it('a gzipped answer still ends with the trailers', async () => {
    const backend = await startBackend((_req, res) => withTrailers(res));
    const gw = await startEndpointGateway(PLAIN(backend.origin));
    const res = await get(gw.url('/stream'), { 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(res.body).toString()).toBe('first part, second part');
    expect(res.trailers).toEqual({ 'x-checksum': 'sha256=abc', 'grpc-status': '0' });
  });

  it('a body an expression reads is sent whole from memory: no trailers announced or sent', async () => {
    const backend = await startBackend((_req, res) => withTrailers(res));
    const gw = await startEndpointGateway(PLAIN(backend.origin));
    const res = await get(gw.url('/read'));
    expect(res.body.toString()).toBe('first part, second part');
    expect(res.headers['x-body']).toBe('first part, second part');
    expect(res.headers['trailer']).toBeUndefined();
    expect(res.trailers).toEqual({});
  });

  it('an HTTP/1.0 client (no chunks) and a HEAD request get the answer without an announcement Node would refuse', async () => {
    const backend = await startBackend((req, res) => {
      // Node itself refuses to announce trailers on an answer to HEAD: the backend answers without.
      if (req.method === 'HEAD') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end();
      } else withTrailers(res);
    });
    const gw = await startEndpointGateway(PLAIN(backend.origin));
    const head = await get(gw.url('/stream'), {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['trailer']).toBeUndefined();

    const { port } = new URL(gw.url('/'));
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /stream HTTP/1.0\r\nHost: localhost\r\n\r\n'));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.on('error', reject);
    });
    const [head10, body10] = raw.split('\r\n\r\n');
    expect(head10).toMatch(/^HTTP\/1\.1 200 /);
    expect(head10!.toLowerCase()).not.toContain('trailer:');
    expect(head10!.toLowerCase()).not.toContain('transfer-encoding');
    expect(body10).toBe('first part, second part');
  });

  it('a Trailer header a modifier sets goes out only where trailers can follow: no failed requests where Node would refuse it', async () => {
    const backend = await startBackend((req, res) => {
      if (req.url === '/sized') {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' });
        res.end('sized');
      } else withTrailers(res);
    });
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/**" {
    proxy {
      backend = "b"
    }
    set_response_headers = {
      trailer = "x-from-config"
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
    const sized = await get(gw.url('/sized'));
    expect(sized.status).toBe(200);
    expect(sized.body.toString()).toBe('sized');
    expect(sized.headers['trailer']).toBeUndefined();
    const head = await get(gw.url('/sized'), {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['trailer']).toBeUndefined();
    const streamed = await get(gw.url('/streamed'));
    expect(streamed.headers['trailer']).toBe('x-from-config, x-checksum, grpc-status');
    expect(streamed.trailers).toEqual({ 'x-checksum': 'sha256=abc', 'grpc-status': '0' });
    const statuses = gw.records.filter((r) => r.type === 'gateway_access').map((r) => r['status']);
    expect(statuses).toEqual([200, 200, 200]);
  });

  it('a backend that sends trailers it did not announce: forwarded, nothing announced', async () => {
    const backend = await startBackend((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('x');
      res.addTrailers({ 'x-late': 'yes' });
      res.end();
    });
    const gw = await startEndpointGateway(PLAIN(backend.origin));
    const res = await get(gw.url('/stream'));
    expect(res.headers['trailer']).toBeUndefined();
    expect(res.trailers).toEqual({ 'x-late': 'yes' });
  });
});
