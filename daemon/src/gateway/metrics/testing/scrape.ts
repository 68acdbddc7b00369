/** Test support: scrape an exporter over real HTTP and parse what it served. */
import { request } from 'node:http';
import { afterEachTest } from '../../../testing/after-each-test.js';
import type { GatewayMetrics } from '../gateway-metrics.js';
import { MetricsExporter } from '../metrics-exporter.js';
import { parseExposition, type ParsedExposition } from './exposition-parser.js';

const exporters: MetricsExporter[] = [];
afterEachTest(async () => {
  await Promise.all(exporters.splice(0).map((e) => e.stop()));
});

/** An exporter bound to 127.0.0.1, stopped after the test. */
export function loopbackExporter(metrics: GatewayMetrics): MetricsExporter {
  const exporter = new MetricsExporter({ metrics, host: '127.0.0.1' });
  exporters.push(exporter);
  return exporter;
}

export interface Fetched {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** One HTTP/1.1 request to 127.0.0.1:port without keep-alive. */
export function fetchExporter(port: number, path = '/metrics', method = 'GET'): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** GET /metrics, checked against the exposition grammar. */
export async function scrape(port: number): Promise<ParsedExposition> {
  const res = await fetchExporter(port);
  if (res.status !== 200) throw new Error(`scrape of port ${port} answered ${res.status}: ${res.text}`);
  return parseExposition(res.text);
}
