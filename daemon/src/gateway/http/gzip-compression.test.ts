import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

const BIG = 'lorem ipsum dolor sit amet '.repeat(100);

const FILES = {
  'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/big" {
    response { body = "${BIG}" }
  }
  endpoint "/small" {
    response { body = "tiny" }
  }
  endpoint "/empty" {
    response { status = 204 }
  }
  files {
    base_path = "/static"
    document_root = "htdocs"
  }
}
`,
  'htdocs/big.css': BIG,
  'htdocs/big.png': BIG,
};

describe('gzip of client responses', () => {
  it('compresses large text bodies for clients that accept gzip, with Vary: Accept-Encoding', async () => {
    const gw = await startGateway(FILES);
    const res = await send(gw.url(), '/big', { headers: { 'accept-encoding': 'br, gzip;q=0.8' } });
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.headers.vary).toContain('Accept-Encoding');
    expect(res.headers['content-length']).toBeUndefined();
    expect(gunzipSync(res.body).toString()).toBe(BIG);
    const file = await send(gw.url(), '/static/big.css', { headers: { 'accept-encoding': 'gzip' } });
    expect(file.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(file.body).toString()).toBe(BIG);
  });

  it('leaves small bodies, non-text types, HEAD, 204, refusing clients and q=0 alone', async () => {
    const gw = await startGateway(FILES);
    const gzip = { 'accept-encoding': 'gzip' };
    expect((await send(gw.url(), '/small', { headers: gzip })).headers['content-encoding']).toBeUndefined();
    expect((await send(gw.url(), '/static/big.png', { headers: gzip })).headers['content-encoding']).toBeUndefined();
    expect((await send(gw.url(), '/big', { method: 'HEAD', headers: gzip })).headers['content-encoding']).toBeUndefined();
    expect((await send(gw.url(), '/empty', { headers: gzip })).status).toBe(204);
    const plain = await send(gw.url(), '/big');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    expect(plain.text).toBe(BIG);
    expect((await send(gw.url(), '/big', { headers: { 'accept-encoding': 'gzip;q=0' } })).headers['content-encoding']).toBeUndefined();
  });
});
