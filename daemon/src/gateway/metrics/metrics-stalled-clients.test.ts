import { expect, test } from 'vitest';
import { rawExchange } from '../http/testing/raw-socket.js';
import { sampleValue } from './testing/exposition-parser.js';
import { exporterPort, startMeteredGateway } from './testing/metered-gateway.js';
import { scrape } from './testing/scrape.js';

test('clients that stall in their headers are counted as 408 client_request errors; silent sockets are not', async () => {
  const gw = await startMeteredGateway(
    `
settings {
  beta_metrics = true
  beta_metrics_port = 0
  beta_service_name = "shop"
}
server "front" {
  hosts = ["*:0"]
  endpoint "/**" {
    response { body = "ok" }
  }
}
`,
    { limits: { headerTimeoutMs: 300, bodyTimeoutMs: 2000 } },
  );
  // Two clients drip header lines and never finish; one connects and sends nothing.
  const drip = { text: 'X-Slow: 1\r\n', everyMs: 50 };
  const replies = await Promise.all([
    rawExchange(gw.url(), 'GET / HTTP/1.1\r\nHost: a\r\n', { drip, timeoutMs: 8000 }),
    rawExchange(gw.url(), 'GET / HTTP/1.1\r\nHost: a\r\n', { drip, timeoutMs: 8000 }),
    rawExchange(gw.url(), '', { timeoutMs: 8000 }),
  ]);
  expect(replies.map((r) => r.status)).toEqual([408, 408, 408]);
  const port = exporterPort(gw);
  await expect.poll(async () => sampleValue(await scrape(port), 'gateway_client_requests_total', { method: '-', code: '408' })).toBe(2);
  expect(sampleValue(await scrape(port), 'gateway_client_request_errors_total', { error_type: 'client_request' })).toBe(2);
});
