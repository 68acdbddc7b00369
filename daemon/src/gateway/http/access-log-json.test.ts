import { describe, expect, it } from 'vitest';
import { jsonRecords, send, startGateway } from './testing/test-gateway.js';

const CONFIG = `
server "web" {
  hosts = ["*:0"]
  custom_log_fields = { team = "edge", who = "server" }
  api "shop" {
    base_path = "/api"
    custom_log_fields = { who = "api" }
    endpoint "/orders/{id}" {
      custom_log_fields = { order = request.path_params.id, agent = request.headers.user-agent }
      response { body = "order" }
    }
    endpoint "/broken" {
      custom_log_fields = { n = to_number(request.headers.x-n) }
      response { body = "still answers" }
    }
  }
}
settings {
  log_format = "json"
}
`;

describe('access log, json', () => {
  it('writes one object per request with the reference fields, allow-listed headers and merged custom fields', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    const res = await send(gw.url(), '/api/orders/42?x=1', { headers: { 'user-agent': 'probe/1', authorization: 'Bearer SECRET-TOKEN', cookie: 'sid=SECRET-COOKIE', 'x-api-key': 'SECRET-KEY' } });
    expect(res.status).toBe(200);
    await expect.poll(() => jsonRecords(gw.lines).filter((r) => r.type === 'gateway_access')).toHaveLength(1);
    const record = jsonRecords(gw.lines).find((r) => r.type === 'gateway_access')!;
    expect(Object.keys(record).slice(0, 13)).toEqual(['timestamp', 'level', 'type', 'uid', 'method', 'url', 'status', 'server', 'api', 'endpoint', 'handler', 'client_ip', 'auth_user']);
    expect(record).toMatchObject({
      level: 'info',
      uid: res.headers['gateway-request-id'],
      method: 'GET',
      status: 200,
      server: 'web',
      api: 'shop',
      endpoint: '/orders/{id}',
      handler: 'endpoint',
      client_ip: '127.0.0.1',
      request: { headers: { 'user-agent': 'probe/1' }, bytes: 0, tls: false, path: '/api/orders/42' },
      response: { headers: { 'content-type': 'text/plain; charset=utf-8' }, bytes: 5 },
      custom: { team: 'edge', who: 'api', order: '42', agent: 'probe/1' },
    });
    expect(record.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/orders\/42\?x=1$/);
    expect(new Date(record.timestamp).toISOString()).toBe(record.timestamp);
    expect(typeof (record.timings as { total: unknown }).total).toBe('number');
    expect(gw.lines.join('\n')).not.toMatch(/SECRET/);
  });

  it('logs error_type and the detail for errors, and custom fields that fail as an error record without failing the request', async () => {
    const gw = await startGateway({ 'portico.hcl': CONFIG });
    await send(gw.url(), '/api/orders/1', { headers: { 'x-test-error': 'backend_timeout' } });
    const broken = await send(gw.url(), '/api/broken', { headers: { 'x-n': 'not a number' } });
    expect(broken.text).toBe('still answers');
    await expect.poll(() => jsonRecords(gw.lines).filter((r) => r.type === 'gateway_access')).toHaveLength(2);
    const records = jsonRecords(gw.lines);
    expect(records.find((r) => r.type === 'gateway_access' && r.status === 504)).toMatchObject({ level: 'error', error_type: 'backend_timeout', message: 'test asked for backend_timeout: secret detail' });
    expect(records.find((r) => r.type === 'gateway_daemon')).toMatchObject({ level: 'error', uid: broken.headers['gateway-request-id'], message: expect.stringContaining('custom_log_fields') });
    expect(records.find((r) => r.type === 'gateway_access' && r.endpoint === '/broken')).toMatchObject({ status: 200, custom: { team: 'edge', who: 'api' } });
  });
});
