import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'portico-gateway-metrics-'));
let daemon: DaemonHandle | null = null;

afterAll(async () => {
  await daemon?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function config(metricsPort: number, greeting: string): string {
  return `server {
  hosts = ["*:\${env.PORTICO_GATEWAY_PORT}"]
  endpoint "/hello" {
    response {
      body = "${greeting}"
    }
  }
}
settings {
  beta_metrics      = true
  beta_metrics_port = ${metricsPort}
  beta_service_name = "e2e-gateway"
  log_level         = "warn"
}
defaults {
  environment_variables = { PORTICO_GATEWAY_PORT = "8080" }
}
`;
}

/** The value of the first sample line starting with `prefix` (name plus labels). */
function sample(text: string, prefix: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
}

describe('the metrics exporter of a running daemon', () => {
  it('counts requests (even below the log level) and reloads, in Prometheus text format', async () => {
    const metricsPort = await freePort();
    const file = join(dir, 'gateway.hcl');
    writeFileSync(file, config(metricsPort, 'one'));
    daemon = await startDaemon({ args: ['--mode', 'gateway', '-f', file] });
    for (let i = 0; i < 3; i++) expect(await (await fetch(`${daemon.gatewayUrl}/hello`)).text()).toBe('one');
    expect((await fetch(`${daemon.gatewayUrl}/missing`)).status).toBe(404);

    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(scrape.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await scrape.text();
    expect(text).toContain('# TYPE gateway_client_requests_total counter');
    const hello = text.split('\n').find((l) => l.startsWith('gateway_client_requests_total{') && l.includes('endpoint="/hello"') && l.includes('code="200"'));
    expect(hello).toContain('service_name="e2e-gateway"');
    expect(Number(hello!.split(' ').at(-1))).toBe(3);
    expect(sample(text, 'gateway_config_reloads_total{service_name="e2e-gateway",result="applied"}')).toBe(1);
    // Access lines are off at log_level warn, yet counted.
    expect(daemon.logs()).not.toContain('/hello"');

    writeFileSync(file, config(metricsPort, 'two'));
    await waitUntil(async () => (await (await fetch(`${daemon!.gatewayUrl}/hello`)).text()) === 'two', 10_000, () => 'the save was not applied');
    const after = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(sample(after, 'gateway_config_reloads_total{service_name="e2e-gateway",result="applied"}')).toBe(2);
  });
});
