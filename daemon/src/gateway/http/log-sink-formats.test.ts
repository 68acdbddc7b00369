import { describe, expect, it } from 'vitest';
import type { GatewayLogRecord } from '../contracts.js';
import { createGatewayLogSink } from '../logs/log-sink.js';
import { send, startGateway } from './testing/test-gateway.js';

const backendRecord: GatewayLogRecord = {
  timestamp: '2030-01-02T03:04:05.000Z',
  level: 'info',
  type: 'gateway_backend',
  uid: 'abc123',
  backend: 'orders',
  handler: 'default',
  method: 'POST',
  url: 'http://orders.internal/v1/orders',
  status: 201,
  request: { headers: { 'content-type': 'application/json', authorization: 'Basic c2VjcmV0' }, bytes: 12 },
  response: { headers: { 'content-type': 'application/json', 'set-cookie': 'sid=secret' }, bytes: 40 },
  timings: { dns: 0.4, tcp: 1.2, tls: null, ttfb: 8.5, total: 9.25 },
};

describe('log sink formats', () => {
  it('common: an Apache-like access line with method, path, status, duration, id and handler', async () => {
    const gw = await startGateway({ 'portico.hcl': 'server "edge" {\n  hosts = ["*:0"]\n  endpoint "/hello" {\n    response { body = "hi" }\n  }\n}\n' });
    const res = await send(gw.url(), '/hello?name=x', { headers: { 'x-test-error': 'unexpected_status' } });
    await expect.poll(() => gw.lines.length).toBe(1);
    const line = gw.lines[0]!;
    expect(line).toMatch(
      new RegExp(`^127\\.0\\.0\\.1 - - \\[[^\\]]+\\] "GET http://127\\.0\\.0\\.1:\\d+/hello\\?name=x" 502 \\d+ \\d+\\.\\dms id=${String(res.headers['gateway-request-id'])} handler=endpoint server=edge endpoint=/hello error_type=unexpected_status message=`),
    );
  });

  it('renders backend records in both formats without headers outside the allow-list', () => {
    const lines: string[] = [];
    const sink = createGatewayLogSink({ write: (l) => lines.push(l) });
    sink.write(backendRecord);
    expect(lines[0]).toBe('[2030-01-02T03:04:05.000Z] backend orders "POST http://orders.internal/v1/orders" 201 9.3ms ttfb=8.5ms id=abc123 handler=default');
    sink.configure({ format: 'json', level: 'info', pretty: false });
    sink.write(backendRecord);
    const json = JSON.parse(lines[1]!) as Record<string, Record<string, unknown>>;
    expect(json.timings).toEqual({ dns: 0.4, tcp: 1.2, tls: null, ttfb: 8.5, total: 9.25 });
    expect(json.request!.headers).toEqual({ 'content-type': 'application/json' });
    expect(json.response!.headers).toEqual({ 'content-type': 'application/json' });
    expect(lines.join('\n')).not.toMatch(/secret|c2VjcmV0/);
  });

  it('honours log_level and log_pretty', () => {
    const lines: string[] = [];
    const sink = createGatewayLogSink({ format: 'json', level: 'error', pretty: true, write: (l) => lines.push(l) });
    sink.write(backendRecord);
    sink.write({ ...backendRecord, level: 'error', error_type: 'backend_timeout' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('\n  "level": "error"');
  });

  it('takes log_format, log_pretty and log_level from the settings block of the configuration', async () => {
    const hcl = (pretty: boolean) =>
      `server {\n  hosts = ["*:0"]\n  endpoint "/hello" {\n    response { body = "hi" }\n  }\n}\nsettings {\n  log_format = "json"\n  log_pretty = ${pretty}\n}\n`;
    const gw = await startGateway({ 'portico.hcl': hcl(true) });
    await send(gw.url(), '/hello');
    await expect.poll(() => gw.lines.length).toBe(1);
    expect(gw.lines[0]).toMatch(/^\{\n {2}"timestamp": /);
    expect(JSON.parse(gw.lines[0]!)).toMatchObject({ type: 'gateway_access', status: 200 });
    // A reload to log_pretty = false goes back to one line a record.
    await gw.server.apply(await gw.loadConfig({ 'portico.hcl': hcl(false) }));
    await send(gw.url(), '/hello');
    await expect.poll(() => gw.lines.length).toBe(2);
    expect(gw.lines[1]).toMatch(/^\{"timestamp":[^\n]*\}$/);
  });
});
