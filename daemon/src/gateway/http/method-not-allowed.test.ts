import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

describe('allowed_methods', () => {
  it('answers other methods with 405 and an Allow header, inside an api as JSON', async () => {
    const gw = await startGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  api {
    base_path = "/api"
    allowed_methods = ["GET", "post"]
    endpoint "/items" {
      response { body = "items" }
    }
    endpoint "/only-delete" {
      allowed_methods = ["DELETE"]
      response { body = "deleted" }
    }
  }
}
`,
    });
    expect((await send(gw.url(), '/api/items', { method: 'POST' })).text).toBe('items');
    const put = await send(gw.url(), '/api/items', { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, POST');
    expect(put.headers['gateway-error']).toBe('method not allowed error');
    expect(JSON.parse(put.text)).toMatchObject({ error: { status: 405, message: 'method not allowed error' } });
    const get = await send(gw.url(), '/api/only-delete');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('DELETE');
    expect((await send(gw.url(), '/api/only-delete', { method: 'DELETE' })).text).toBe('deleted');
  });
});
