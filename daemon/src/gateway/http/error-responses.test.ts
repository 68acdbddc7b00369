import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

const CONFIG = `
server {
  hosts = ["*:0"]
  endpoint "/page" {
    response { body = "page" }
  }
  api {
    base_path = "/api"
    endpoint "/thing" {
      response { body = "thing" }
    }
  }
}
`;

describe('default error responses', () => {
  it('api: JSON with id, message, path and status, Gateway-Error with the synopsis, never the detail', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    const res = await send(gw.url(), '/api/thing?x=1', { headers: { 'x-test-error': 'backend_timeout' } });
    expect(res.status).toBe(504);
    expect(res.headers['gateway-error']).toBe('backend error');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const id = res.headers['gateway-request-id'];
    expect(JSON.parse(res.text)).toEqual({ error: { id, message: 'backend error', path: '/api/thing', status: 504 } });
    expect(res.text).not.toContain('secret detail');
  });

  it('elsewhere: an HTML page with status, message, escaped path and request id', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    const res = await send(gw.url(), '/page/%3Cscript%3E<b>', { headers: { 'x-test-error': 'backend' } });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<title>404 route not found error</title>');
    expect(res.text).toContain(res.headers['gateway-request-id'] as string);
    expect(res.text).toContain('/page/%3Cscript%3E&#60;b&#62;');
    expect(res.text).not.toContain('<b>');
    const failed = await send(gw.url(), '/page', { headers: { 'x-test-error': 'unexpected_status' } });
    expect(failed.status).toBe(502);
    expect(failed.text).toContain('<title>502 endpoint error</title>');
    expect(failed.text).not.toContain('secret detail');
  });

  it('answers HEAD with status and headers only', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    const res = await send(gw.url(), '/api/none', { method: 'HEAD' });
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body.length).toBe(0);
  });
});
