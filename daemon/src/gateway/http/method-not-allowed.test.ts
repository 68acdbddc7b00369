import { describe, expect, it } from 'vitest';
import { startEndpointGateway } from '../endpoint/testing/endpoint-gateway.js';
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

  it('takes * with extra methods: the seven standard ones and the extra, and 405 for the rest', async () => {
    const gw = await startEndpointGateway(`
server {
  hosts = ["*:0"]
  api {
    base_path = "/api"
    allowed_methods = ["*", "PURGE"]
    endpoint "/cache" {
      response { body = request.method }
    }
  }
}
`);
    for (const method of ['GET', 'PUT', 'DELETE', 'PURGE']) expect((await send(gw.url('/'), '/api/cache', { method })).text, method).toBe(method);
    const other = await send(gw.url('/'), '/api/cache', { method: 'PROPFIND' });
    expect(other.status).toBe(405);
    expect(other.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, PURGE');
  });

  it('warns at load of an allowed method the HTTP parser never lets through (a 400 before routing)', async () => {
    const gw = await startGateway({
      'portico.hcl': `
server {
  hosts = ["*:0"]
  endpoint "/pot" {
    allowed_methods = ["GET", "BREW"]
    response { body = "coffee" }
  }
  endpoint "/kettle" {
    beta_required_permission = { get = "", when = "", "*" = "" }
    response { body = "tea" }
  }
}
`,
    });
    expect(gw.lines.filter((l) => l.startsWith('WARN'))).toEqual([
      expect.stringMatching(/^WARN endpoint "\/pot" \(.*portico\.hcl:4\): allowed_methods BREW can never arrive: the HTTP server's parser answers 400 to methods outside its list \(ACL .* UNSUBSCRIBE\)$/),
      expect.stringMatching(/^WARN endpoint "\/kettle" \(.*portico\.hcl:8\): beta_required_permission WHEN can never arrive/),
    ]);
    expect((await send(gw.url(), '/pot', { method: 'BREW' })).status).toBe(400);
  });
});
