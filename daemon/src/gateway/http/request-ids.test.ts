import { describe, expect, it } from 'vitest';
import { commonRequestId } from './request-id.js';
import { send, startGateway } from './testing/test-gateway.js';

const ENDPOINT = '  endpoint "/id" {\n    response { body = request.id }\n  }\n';

describe('request ids', () => {
  it('common: 20 characters of base32hex, unique, in the client header and passed to the endpoint', async () => {
    const gw = await startGateway({ 'portico.hcl': `server {\n  hosts = ["*:0"]\n${ENDPOINT}}\n` });
    const first = await send(gw.url(), '/id');
    const second = await send(gw.url(), '/id');
    const id = first.headers['gateway-request-id'] as string;
    expect(id).toMatch(/^[0-9a-v]{20}$/);
    expect((JSON.parse(first.text) as { id: string }).id).toBe(id);
    expect(second.headers['gateway-request-id']).not.toBe(id);
    expect(commonRequestId(Date.UTC(2030, 0, 1)) > commonRequestId(Date.UTC(2020, 0, 1))).toBe(true);
  });

  it('uuid4, in a client header of our choosing', async () => {
    const gw = await startGateway({
      'portico.hcl': `server {\n  hosts = ["*:0"]\n${ENDPOINT}}\nsettings {\n  request_id_format = "uuid4"\n  request_id_client_header = "X-Request-Id"\n}\n`,
    });
    const res = await send(gw.url(), '/id');
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(res.headers['gateway-request-id']).toBeUndefined();
  });

  it('accepts the client id from request_id_accept_from_header when it is valid, refuses a bad one (400), generates one when absent', async () => {
    const gw = await startGateway({
      'portico.hcl': `server {\n  hosts = ["*:0"]\n${ENDPOINT}}\nsettings {\n  request_id_accept_from_header = "X-Trace-Id"\n}\n`,
    });
    const accepted = await send(gw.url(), '/id', { headers: { 'x-trace-id': 'abc-123=def/45' } });
    expect(accepted.headers['gateway-request-id']).toBe('abc-123=def/45');
    expect((JSON.parse(accepted.text) as { id: string }).id).toBe('abc-123=def/45');
    const insane = await send(gw.url(), '/id', { headers: { 'x-trace-id': 'has spaces; and "quotes"' } });
    expect(insane.status).toBe(400);
    expect(insane.headers['gateway-request-id']).toMatch(/^[0-9a-v]{20}$/);
    const absent = await send(gw.url(), '/id');
    expect(absent.headers['gateway-request-id']).toMatch(/^[0-9a-v]{20}$/);
  });
});
