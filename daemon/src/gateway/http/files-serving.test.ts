import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

const FILES = {
  'portico.hcl': `
server {
  hosts = ["*:0"]
  files {
    base_path = "/static"
    document_root = "htdocs"
  }
}
`,
  'htdocs/index.html': '<h1>home</h1>',
  'htdocs/site.css': 'body { color: red }',
  'htdocs/docs/index.html': '<h1>docs</h1>',
  'htdocs/data.json': '{"a":1}',
  'htdocs/blob.bin': 'xyz',
};

describe('files', () => {
  it('serves files with a Content-Type by extension and index.html for directories', async () => {
    const gw = await startGateway(FILES);
    const css = await send(gw.url(), '/static/site.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.text).toBe('body { color: red }');
    expect((await send(gw.url(), '/static/data.json')).headers['content-type']).toBe('application/json; charset=utf-8');
    expect((await send(gw.url(), '/static/blob.bin')).headers['content-type']).toBe('application/octet-stream');
    expect((await send(gw.url(), '/static/')).text).toBe('<h1>home</h1>');
    expect((await send(gw.url(), '/static/docs/')).text).toBe('<h1>docs</h1>');
  });

  it('redirects a directory without its trailing slash, keeping the query', async () => {
    const gw = await startGateway(FILES);
    const res = await send(gw.url(), '/static/docs?lang=en');
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/static/docs/?lang=en');
  });

  it('answers HEAD with headers only, and 304 for a matching ETag or If-Modified-Since', async () => {
    const gw = await startGateway(FILES);
    const head = await send(gw.url(), '/static/site.css', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('19');
    expect(head.body.length).toBe(0);
    const etag = head.headers.etag as string;
    expect(etag).toMatch(/^W\/"/);
    expect((await send(gw.url(), '/static/site.css', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await send(gw.url(), '/static/site.css', { headers: { 'if-modified-since': head.headers['last-modified'] as string } })).status).toBe(304);
    expect((await send(gw.url(), '/static/site.css', { headers: { 'if-modified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' } })).status).toBe(200);
  });

  it('answers a missing file with 404 and other methods with 405', async () => {
    const gw = await startGateway(FILES);
    const missing = await send(gw.url(), '/static/nope.txt');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('404 route not found error');
    const post = await send(gw.url(), '/static/site.css', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });
});
