import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

const CONFIG = `
server "s" {
  hosts = ["*:0"]
  base_path = "/v1"
  endpoint "/status" {
    response { body = "status" }
  }
  api "users" {
    base_path = "/api"
    endpoint "/users/{id}" {
      response { body = request.id }
    }
    endpoint "/users/me" {
      response { body = "me" }
    }
    endpoint "/files/**" {
      response { body = request.id }
    }
  }
}
`;

describe('routing under server and api base paths', () => {
  it('joins base paths, prefers the most specific pattern and passes params and the wildcard rest', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    expect((await send(gw.url(), '/v1/status')).text).toBe('status');
    expect((await send(gw.url(), '/v1/api/users/me')).text).toBe('me');
    const byId = JSON.parse((await send(gw.url(), '/v1/api/users/a%20b')).text) as Record<string, unknown>;
    expect(byId).toMatchObject({ endpoint: '/users/{id}', path: '/v1/api/users/{id}', api: 'users', server: 's', params: { id: 'a b' }, wildcard: null });
    const rest = JSON.parse((await send(gw.url(), '/v1/api/files/x/y.txt?q=1')).text) as Record<string, unknown>;
    expect(rest).toMatchObject({ endpoint: '/files/**', wildcard: 'x/y.txt' });
    expect(rest.url).toMatch(/\/v1\/api\/files\/x\/y\.txt\?q=1$/);
  });

  it('answers 404 as JSON inside an api base path and as an HTML page elsewhere', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    const inApi = await send(gw.url(), '/v1/api/nothing');
    expect(inApi.status).toBe(404);
    expect(inApi.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(inApi.text)).toMatchObject({ error: { message: 'route not found error', path: '/v1/api/nothing', status: 404 } });
    const outside = await send(gw.url(), '/status');
    expect(outside.status).toBe(404);
    expect(outside.headers['content-type']).toMatch(/^text\/html/);
    expect(outside.text).toContain('<title>404 route not found error</title>');
  });
});
