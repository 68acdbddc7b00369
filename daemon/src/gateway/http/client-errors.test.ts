import { describe, expect, it } from 'vitest';
import { rawExchange, rawHeader } from './testing/raw-socket.js';
import { jsonRecords, send, startGateway } from './testing/test-gateway.js';

const CONFIG = { 'portico.hcl': 'server {\n  hosts = ["*:0"]\n  endpoint "/**" {\n    response { body = "ok" }\n  }\n}\nsettings {\n  log_format = "json"\n}\n' };

describe('requests the front refuses before routing', () => {
  it('answers 431 with the error page when the headers are larger than the limit, and logs the request line', async () => {
    const gw = await startGateway(CONFIG, { limits: { maxHeaderBytes: 4096 } });
    const reply = await rawExchange(gw.url(), `GET /big?x=1 HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(8000)}\r\n\r\n`);
    expect(reply.status).toBe(431);
    expect(rawHeader(reply.text, 'gateway-error')).toBe('client request error');
    expect(rawHeader(reply.text, 'connection')).toBe('close');
    expect(rawHeader(reply.text, 'gateway-request-id')).toMatch(/^[0-9a-v]{20}$/);
    expect(reply.text).toContain('<title>431 client request error</title>');
    const record = jsonRecords(gw.lines).find((r) => r.status === 431);
    expect(record).toMatchObject({ method: 'GET', error_type: 'client_request', uid: rawHeader(reply.text, 'gateway-request-id') });
    expect(String(record?.url)).toMatch(/\/big\?x=1$/);
    // A normal request on a new connection is still served.
    expect((await send(gw.url(), '/fine')).status).toBe(200);
  });

  it('answers 414 for a request target past the URL limit, in the pipeline and when it alone overflows the header limit', async () => {
    const gw = await startGateway(CONFIG, { limits: { maxUrlBytes: 1024, maxHeaderBytes: 4096 } });
    const long = await send(gw.url(), `/${'a'.repeat(2000)}`);
    expect(long.status).toBe(414);
    expect(long.headers['gateway-error']).toBe('client request error');
    expect(jsonRecords(gw.lines).find((r) => r.status === 414)).toMatchObject({ error_type: 'client_request' });
    expect((await send(gw.url(), `/${'a'.repeat(1000)}`)).status).toBe(200);

    const huge = await rawExchange(gw.url(), `GET /${'a'.repeat(10_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect(huge.status).toBe(414);
    expect(rawHeader(huge.text, 'gateway-error')).toBe('client request error');
  });

  it('refuses GET without an HTTP version (HTTP/0.9) with 400 and closes the connection', async () => {
    const gw = await startGateway(CONFIG);
    const reply = await rawExchange(gw.url(), 'GET /\r\n\r\n');
    expect(reply.status).toBe(400);
    expect(rawHeader(reply.text, 'gateway-error')).toBe('client request error');
    expect(rawHeader(reply.text, 'connection')).toBe('close');
    expect(reply.text).not.toContain('\r\n\r\nok');
    expect(jsonRecords(gw.lines).find((r) => r.status === 400)).toMatchObject({ error_type: 'client_request', message: expect.stringMatching(/HTTP\/0\.9/) });
  });

  it('refuses an unknown HTTP version and a malformed method with 400 and closes; the version error has an access line', async () => {
    const gw = await startGateway(CONFIG);
    const version = await rawExchange(gw.url(), 'GET /v HTTP/9.9\r\nHost: a\r\n\r\n');
    expect(version.status).toBe(400);
    expect(rawHeader(version.text, 'gateway-error')).toBe('client request error');
    const method = await rawExchange(gw.url(), 'G@T /m HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(method.status).toBe(400);
    const logged = jsonRecords(gw.lines).filter((r) => r.status === 400);
    // Only the version error had a request line to log.
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ method: 'GET', error_type: 'client_request' });
  });

  it('answers an HTTP/2.0 request line (which the parser takes) with 505 and closes, as the peer does', async () => {
    const gw = await startGateway(CONFIG);
    const reply = await rawExchange(gw.url(), 'GET /two HTTP/2.0\r\nHost: a\r\n\r\n');
    expect(reply.status).toBe(505);
    expect(rawHeader(reply.text, 'connection')).toBe('close');
    expect(reply.text).not.toContain('\r\n\r\nok');
    expect(jsonRecords(gw.lines).find((r) => r.status === 505)).toMatchObject({ method: 'GET', error_type: 'client_request', message: expect.stringMatching(/HTTP\/2\.0 .*send HTTP\/1\.1/) });
  });

  it('refuses a request with more than one Host header (RFC 9112 §3.2): a proxy in front might have read another', async () => {
    const gw = await startGateway(CONFIG);
    for (const hosts of ['Host: a\r\nHost: b', 'Host: a\r\nhost: a', 'HOST: a\r\nX-A: 1\r\nhOsT: b']) {
      const reply = await rawExchange(gw.url(), `GET /h HTTP/1.1\r\n${hosts}\r\n\r\n`);
      expect([hosts, reply.status]).toEqual([hosts, 400]);
      expect(reply.text).not.toContain('\r\n\r\nok');
    }
    const logged = jsonRecords(gw.lines).filter((r) => r.status === 400);
    expect(logged).toHaveLength(3);
    for (const record of logged) expect(record).toMatchObject({ error_type: 'client_request', message: 'more than one Host header; send exactly one' });
    // One Host header, any case, and HTTP/1.0 without one are served.
    for (const head of ['GET /h HTTP/1.1\r\nhOsT: a', 'GET /h HTTP/1.0']) expect((await rawExchange(gw.url(), `${head}\r\nConnection: close\r\n\r\n`)).status).toBe(200);
  });

  it('refuses a Host header with a character no host has (user@, /, spaces inside, non-ASCII), as the peer does', async () => {
    const gw = await startGateway(CONFIG);
    for (const host of ['user@a', 'a/b', 'a b', 'ä.example', 'a\\b']) {
      const reply = await rawExchange(gw.url(), `GET /h HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      expect([host, reply.status]).toEqual([host, 400]);
      expect(rawHeader(reply.text, 'connection')).toBe('close');
    }
    // Node reads header bytes as latin1, so the message shows a UTF-8 name's bytes one by one.
    const logged = jsonRecords(gw.lines).filter((r) => r.status === 400);
    expect(logged.map((r) => r.message)).toEqual(['user@a', 'a/b', 'a b', 'ä.example', 'a\\b'].map((h) => `the Host header ${JSON.stringify(Buffer.from(h).toString('latin1'))} holds a character no host name, address or port has; send host or host:port`));
    // Names, addresses, ports, IPv6 with a zone, and what Node trims around a value are hosts.
    for (const host of ['a.example', 'a-b_c.example:8080', '127.0.0.1:1', '[::1]:8080', '[fe80::1%25eth0]', '  a.example  ']) {
      expect([host, (await rawExchange(gw.url(), `GET /h HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).status]).toEqual([host, 200]);
    }
  });

  it('logs an IPv4 client of a dual-stack listener by its IPv4 address', async () => {
    const gw = await startGateway(CONFIG, { limits: { maxHeaderBytes: 4096 }, listenHost: '::' });
    const reply = await rawExchange(gw.url(), `GET /big HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(8000)}\r\n\r\n`);
    expect(reply.status).toBe(431);
    expect(jsonRecords(gw.lines).find((r) => r.status === 431)).toMatchObject({ client_ip: '127.0.0.1' });
  });

  it('refuses an HTTP/1.1 request without Host with 400 from the gateway', async () => {
    const gw = await startGateway(CONFIG);
    const reply = await rawExchange(gw.url(), 'GET /h HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(reply.status).toBe(400);
    expect(rawHeader(reply.text, 'gateway-error')).toBe('client request error');
  });
});
