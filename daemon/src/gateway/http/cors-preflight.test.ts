import { describe, expect, it } from 'vitest';
import { send, startGateway } from './testing/test-gateway.js';

const CONFIG = `
server {
  hosts = ["*:0"]
  cors {
    allowed_origins = ["https://app.example.com"]
    allow_credentials = true
    max_age = "10m"
  }
  api {
    base_path = "/api"
    endpoint "/items" {
      allowed_methods = ["GET", "POST"]
      response { body = "items" }
    }
  }
}
`;

const preflight = (origin: string, method: string, headers: Record<string, string> = {}) => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': method, ...headers },
});

describe('CORS preflight', () => {
  it('answers 204 with the allowed method, the echoed headers and max age', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    const res = await send(gw.url(), '/api/items', preflight('https://app.example.com', 'POST', { 'access-control-request-headers': 'content-type, x-token' }));
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-allow-methods']).toBe('POST');
    expect(res.headers['access-control-allow-headers']).toBe('content-type, x-token');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers.vary).toContain('Origin');
  });

  it('leaves out Access-Control-Allow-Methods for a method the endpoint does not allow', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    const res = await send(gw.url(), '/api/items', preflight('https://app.example.com', 'DELETE'));
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('gives no CORS headers to an origin that is not allowed', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    const res = await send(gw.url(), '/api/items', preflight('https://evil.example.com', 'GET'));
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.headers['access-control-allow-methods']).toBeUndefined();
  });

  it('passes an OPTIONS request through to the route when no cors applies (here: 405)', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG.replace(/cors \{[\s\S]*?\n  \}\n/, '') });
    const res = await send(gw.url(), '/api/items', preflight('https://app.example.com', 'GET'));
    expect(res.status).toBe(405);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
