import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startBackend, startEndpointGateway, type EndpointGateway } from '../endpoint/testing/endpoint-gateway.js';
import { rawExchange } from './testing/raw-socket.js';

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The answers in `text`, one after the other, framed as a client reads them (Content-Length, chunks, or to the close). */
function answers(text: string): Parsed[] {
  const out: Parsed[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine = '', ...lines] = rest.slice(0, end === -1 ? rest.length : end).split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    if (end === -1 || !status) throw new Error(`not the start of an answer: ${JSON.stringify(rest.slice(0, 80))}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(end + 4);
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = parseInt(rest.slice(0, lineEnd), 16);
        rest = rest.slice(lineEnd + 2);
        if (size === 0) {
          rest = rest.slice(rest.indexOf('\r\n') + 2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    } else if (headers['content-length'] !== undefined) {
      const length = Number(headers['content-length']);
      body = rest.slice(0, length);
      rest = rest.slice(length);
    } else {
      body = rest;
      rest = '';
    }
    out.push({ status: Number(status[1]), headers, body });
  }
  return out;
}

/** Two requests on one connection, the second closing it: what a keep-alive client would read. */
async function twoInARow(gw: EndpointGateway, path: string, method = 'GET'): Promise<Parsed[]> {
  const { port } = new URL(gw.url('/'));
  const request = (close: boolean) => `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;
  const reply = await rawExchange(gw.url('/'), request(false) + request(true));
  return answers(reply.text);
}

const LARGE = 'x'.repeat(70_000);
const dir = mkdtempSync(join(tmpdir(), 'portico-framing-'));
writeFileSync(join(dir, 'page.txt'), 'a file of 25 bytes here.\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function gateway(): Promise<EndpointGateway> {
  const backend = await startBackend((req, res) => {
    if (req.url === '/proxy/large') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(LARGE.length) });
      res.end(LARGE);
    } else if (req.url === '/proxy/chunked') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write('first ');
      setTimeout(() => res.end('second'), 10);
    } else {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '11' });
      res.end('small reply');
    }
  });
  return startEndpointGateway(`
server {
  hosts = ["*:0"]
  endpoint "/proxy/**" {
    proxy {
      backend = "b"
    }
    set_response_headers = {
      content-length = "5"
      transfer-encoding = "gzip"
    }
  }
  endpoint "/answer" {
    response {
      body = "hello"
    }
    set_response_headers = {
      content-length = "1"
    }
  }
  endpoint "/empty" {
    response {
      status = 302
      headers = {
        location = "/elsewhere"
      }
    }
    set_response_headers = {
      content-length = "9"
    }
  }
  files {
    base_path = "/files"
    document_root = "${dir}"
    set_response_headers = {
      content-length = "2"
    }
  }
}
definitions {
  backend "b" { origin = "${backend.origin}" }
}
`);
}

describe("the framing of an answer is the gateway's, whatever a modifier set", () => {
  it('a body read whole keeps its own Content-Length; a Transfer-Encoding header is not sent; the next answer on the connection is intact', async () => {
    const gw = await gateway();
    const [first, second] = await twoInARow(gw, '/proxy/small');
    for (const answer of [first!, second!]) {
      expect(answer.status).toBe(200);
      expect(answer.body).toBe('small reply');
      expect(answer.headers['content-length']).toBe('11');
      expect(answer.headers['transfer-encoding']).toBeUndefined();
    }
  });

  it("a streamed backend body: its own length where the backend gave one, chunks where it gave none", async () => {
    const gw = await gateway();
    const large = await twoInARow(gw, '/proxy/large');
    expect(large.map((a) => [a.headers['content-length'], a.body.length])).toEqual([
      ['70000', 70_000],
      ['70000', 70_000],
    ]);
    const chunked = await twoInARow(gw, '/proxy/chunked');
    expect(chunked.map((a) => [a.headers['content-length'], a.headers['transfer-encoding'], a.body])).toEqual([
      [undefined, 'chunked', 'first second'],
      [undefined, 'chunked', 'first second'],
    ]);
  });

  it('a response block answer, one without a body, and a file keep their lengths', async () => {
    const gw = await gateway();
    const answer = await twoInARow(gw, '/answer');
    expect(answer.map((a) => [a.headers['content-length'], a.body])).toEqual([
      ['5', 'hello'],
      ['5', 'hello'],
    ]);
    const empty = await twoInARow(gw, '/empty');
    expect(empty.map((a) => [a.status, a.headers['content-length'], a.body])).toEqual([
      [302, '0', ''],
      [302, '0', ''],
    ]);
    const file = await twoInARow(gw, '/files/page.txt');
    expect(file.map((a) => [a.headers['content-length'], a.body])).toEqual([
      ['25', 'a file of 25 bytes here.\n'],
      ['25', 'a file of 25 bytes here.\n'],
    ]);
  });

  it("HEAD: the backend's own length of the GET answer, nothing after the head", async () => {
    const gw = await gateway();
    const { port } = new URL(gw.url('/'));
    const reply = await rawExchange(gw.url('/'), `HEAD /proxy/small HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(reply.status).toBe(200);
    expect(reply.text.toLowerCase()).toContain('content-length: 11\r\n');
    expect(reply.text.toLowerCase()).not.toContain('transfer-encoding');
    expect(reply.text.endsWith('\r\n\r\n')).toBe(true);
  });
});
