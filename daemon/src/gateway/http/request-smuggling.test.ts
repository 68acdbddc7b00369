// Request smuggling: a front and a backend that disagree on where a request ends let a second,
// hidden request through. The gateway's front refuses every ambiguous framing with 400 and
// closes the connection, so a request hidden in a body never reaches a backend, least of all
// past an access control; a backend answer with ambiguous framing is a 502, never a second
// answer on the client's connection. Well-framed pipelined and chunked requests still go
// through whole.
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startBackend, startEndpointGateway } from '../endpoint/testing/endpoint-gateway.js';
import { rawExchange, rawHeader } from './testing/raw-socket.js';

function config(origin: string): string {
  return `
server {
  hosts = ["*:0"]
  endpoint "/admin/**" {
    access_control = ["ba"]
    proxy {
      backend = "b"
    }
  }
  endpoint "/**" {
    proxy {
      backend = "b"
    }
  }
}
definitions {
  backend "b" {
    origin = "${origin}"
  }
  basic_auth "ba" {
    user     = "ops"
    password = "a-long-enough-password"
  }
}
`;
}

/** The hidden request: it asks for the guarded path without credentials. */
const HIDDEN = 'GET /admin/secret HTTP/1.1\r\nHost: a\r\n\r\n';

/** Heads whose framing two parsers could read differently, each followed by a body that ends where one reading says and the hidden request after. */
const AMBIGUOUS: [name: string, head: string, body: string][] = [
  ['Content-Length and Transfer-Encoding (CL.TE)', 'Content-Length: 5\r\nTransfer-Encoding: chunked', '0\r\n\r\n'],
  ['Transfer-Encoding and a short Content-Length (TE.CL)', 'Transfer-Encoding: chunked\r\nContent-Length: 3', `${(HIDDEN.length + 2).toString(16)}\r\nxx${HIDDEN}\r\n0\r\n\r\n`],
  ['two different Content-Lengths', `Content-Length: 0\r\nContent-Length: ${HIDDEN.length}`, ''],
  ['a Content-Length list', `Content-Length: 0, ${HIDDEN.length}`, ''],
  ['a signed Content-Length', `Content-Length: +${HIDDEN.length}`, ''],
  ['chunked not the last coding', 'Transfer-Encoding: chunked, identity', '0\r\n\r\n'],
  ['an unknown transfer coding', 'Transfer-Encoding: xchunked', '0\r\n\r\n'],
  ['a space before the colon', 'Transfer-Encoding : chunked\r\nContent-Length: 5', '0\r\n\r\n'],
  ['a folded Transfer-Encoding', 'Transfer-Encoding:\r\n chunked\r\nContent-Length: 5', '0\r\n\r\n'],
  ['a chunk size with a bare LF', 'Transfer-Encoding: chunked', '0\n\n'],
  ['a chunk size that is not hex', 'Transfer-Encoding: chunked', '0x0\r\n\r\n'],
];

/** The statuses of the answers in `text`, in order (each answer's head right after the body before). */
function statusesOf(text: string): string[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3}) [^\r\n]*\r\n/g)].map((m) => m[1] ?? '');
}

describe('request smuggling at the front', () => {
  it('refuses each ambiguous framing with 400 and closes; the hidden request never reaches the backend', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(config(backend.origin));
    const answers: string[] = [];
    for (const [name, head, body] of AMBIGUOUS) {
      const reply = await rawExchange(gw.url('/'), `POST /open HTTP/1.1\r\nHost: a\r\n${head}\r\n\r\n${body}${HIDDEN}`);
      const statuses = statusesOf(reply.text);
      answers.push(`${name}: ${statuses.join(' ')} ${rawHeader(reply.text, 'connection') ?? ''}`);
    }
    expect(answers).toEqual(AMBIGUOUS.map(([name]) => `${name}: 400 close`));
    expect(backend.seen.map((r) => r.url)).toEqual([]);
    // Each is logged as the client's fault with what the parser refused, also when the body had begun to stream.
    const lines = gw.records.filter((r) => r.type === 'gateway_access');
    expect(lines.map((r) => `${String(r['status'])} ${String(r['error_type'])} ${/could not be parsed: HPE_\w+/.test(String(r['message']))}`)).toEqual(AMBIGUOUS.map(() => '400 client_request true'));
  });

  it('serves well-framed pipelined and chunked requests whole, and guards a pipelined request as its own', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(config(backend.origin));
    const reply = await rawExchange(
      gw.url('/'),
      'POST /one HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello' +
        'POST /two HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n' +
        'GET /admin/secret HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n',
    );
    expect(statusesOf(reply.text)).toEqual(['200', '200', '401']);
    expect(backend.seen.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', '/one', 'hello'],
      ['POST', '/two', 'abcde'],
    ]);
  });

  it('answers a request before a pipelined one that does not parse, then 400 and closes', async () => {
    const backend = await startBackend();
    const gw = await startEndpointGateway(config(backend.origin));
    const reply = await rawExchange(gw.url('/'), `POST /first HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhelloPOST /second HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${HIDDEN}`);
    expect(statusesOf(reply.text)).toEqual(['200', '400']);
    expect(reply.text.slice(reply.text.lastIndexOf('HTTP/1.1 400'))).toMatch(/\r\nconnection: close\r\n/i);
    expect(backend.seen.map((r) => r.url)).toEqual(['/first']);
    const lines = gw.records.filter((r) => r.type === 'gateway_access').map((r) => [r['status'], r['method'], r['error_type'] ?? null]);
    expect(lines).toEqual([
      [200, 'POST', null],
      [400, '-', 'client_request'],
    ]);
  });
});

/** A backend on raw TCP: `/split` answers with both Content-Length and Transfer-Encoding and a second answer hidden in its body; the rest answer `fine`. */
async function rawBackend(): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n\r\n')) !== -1) {
        const target = buffered.slice(0, end).split(' ')[1] ?? '';
        buffered = buffered.slice(end + 4);
        socket.write(
          target === '/split'
            ? 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nsmuggle'
            : 'HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nfine',
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => { for (const s of sockets) s.destroy(); server.close(() => resolve()); }));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

describe('response smuggling from a backend', () => {
  it('answers a backend response with ambiguous framing with 502, and the next request on the connection gets its own answer', async () => {
    const gw = await startEndpointGateway(config(await rawBackend()));
    const reply = await rawExchange(gw.url('/'), 'GET /split HTTP/1.1\r\nHost: a\r\n\r\nGET /after HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n');
    const answers = reply.text.split(/(?=HTTP\/1\.1 \d{3})/).map((a) => [a.slice(9, 12), a.slice(a.indexOf('\r\n\r\n') + 4)]);
    expect(answers.map(([status]) => status)).toEqual(['502', '200']);
    expect(answers[1]?.[1]).toBe('fine');
    expect(reply.text).not.toContain('smuggle');
  });
});
