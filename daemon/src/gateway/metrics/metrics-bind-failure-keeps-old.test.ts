import { createServer, type Server } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { freePort, send } from '../http/testing/test-gateway.js';
import { loadConfig, startMeteredGateway } from './testing/metered-gateway.js';
import { fetchExporter } from './testing/scrape.js';

const occupied: Server[] = [];
afterEach(async () => {
  await Promise.all(occupied.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A port some other process holds for the whole test. */
async function occupyPort(): Promise<number> {
  const server = createServer();
  occupied.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

const hcl = (metricsPort: number, gatewayPort: number, status: number): string => `
settings {
  beta_metrics = true
  beta_metrics_port = ${metricsPort}
}
server "web" {
  hosts = ["*:${gatewayPort}"]
  endpoint "/ping" {
    response { status = ${status} }
  }
}
`;

test('a metrics port that cannot be bound fails the apply with a clear error; the old exporter and the old routes keep serving', async () => {
  const gw = await startMeteredGateway(hcl(0, 0, 204));
  const before = gw.exporter.boundPort();
  const taken = await occupyPort();

  const apply = gw.apply(await loadConfig(hcl(taken, 0, 202)));
  await expect(apply).rejects.toThrow(`metrics exporter: cannot listen on 127.0.0.1:${taken}: EADDRINUSE; another process (or a server block of this gateway) already listens there; free the port or change beta_metrics_port in the settings block.`);

  expect(gw.exporter.boundPort()).toBe(before);
  expect((await fetchExporter(before ?? 0)).status).toBe(200);
  expect((await send(gw.url(), '/ping')).status).toBe(204);
});

test('when the gateway part of an apply fails, the port the exporter had bound for it is released and the old one kept', async () => {
  const gw = await startMeteredGateway(hcl(0, 0, 204));
  const before = gw.exporter.boundPort();
  const takenByOther = await occupyPort();
  const nextMetricsPort = await freePort();

  await expect(gw.apply(await loadConfig(hcl(nextMetricsPort, takenByOther, 202)))).rejects.toThrow(/gateway: cannot listen on 127\.0\.0\.1:\d+: EADDRINUSE/);

  expect(gw.exporter.boundPort()).toBe(before);
  expect((await fetchExporter(before ?? 0)).status).toBe(200);
  await expect(fetchExporter(nextMetricsPort)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  expect((await send(gw.url(), '/ping')).status).toBe(204);
});
