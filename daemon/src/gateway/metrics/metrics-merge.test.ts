import { describe, expect, it } from 'vitest';
import { mergeFamilies, renderExposition } from './exposition.js';
import { Counter, Histogram } from './instruments.js';
import { createGatewayMetrics } from './gateway-metrics.js';

// With several gateway serving processes the exporter adds up what each counted.
describe('mergeFamilies', () => {
  it('sums counters and histograms by labels, keeps series only one process has, and keeps its own gauges', () => {
    const count = (values: Array<[string, number]>) => {
      const counter = new Counter('requests_total', 'Requests.', ['code']);
      for (const [code, n] of values) counter.inc([code], n);
      return counter.snapshot();
    };
    const histogram = (seconds: number[]) => {
      const h = new Histogram('duration_seconds', 'Duration.', [], [0.1, 1]);
      for (const s of seconds) h.observe([], s);
      return h.snapshot();
    };
    const gauge = (value: number) => ({ name: 'up', help: 'Up.', type: 'gauge' as const, samples: [{ name: 'up', labels: [], value }] });
    const merged = mergeFamilies([count([['200', 1]]), histogram([0.0625]), gauge(1)], [
      [count([['200', 2], ['502', 1]]), histogram([0.5, 2]), gauge(0)],
      [count([['200', 3]]), histogram([0.03125])],
    ]);
    expect(renderExposition(merged)).toBe(
      [
        '# HELP requests_total Requests.',
        '# TYPE requests_total counter',
        'requests_total{code="200"} 6',
        'requests_total{code="502"} 1',
        '# HELP duration_seconds Duration.',
        '# TYPE duration_seconds histogram',
        'duration_seconds_bucket{le="0.1"} 2',
        'duration_seconds_bucket{le="1"} 3',
        'duration_seconds_bucket{le="+Inf"} 4',
        'duration_seconds_sum 2.59375',
        'duration_seconds_count 4',
        '# HELP up Up.',
        '# TYPE up gauge',
        'up 1',
        '',
      ].join('\n'),
    );
  });

  it('adds a family only another process has (a serving process counts requests the daemon never sees)', () => {
    const daemon = createGatewayMetrics({ version: 'test' });
    const serving = createGatewayMetrics({ version: 'test' });
    serving.observe({ type: 'gateway_access', level: 'info', timestamp: '2026-11-27T00:00:00.000Z', server: 's', api: '', endpoint: '/x', method: 'GET', status: 200 });
    const text = renderExposition(mergeFamilies(daemon.families(), [serving.families()]));
    expect(text).toContain('gateway_client_requests_total{service_name="gateway",server="s",api="",endpoint="/x",method="GET",code="200"} 1');
    expect(daemon.render()).not.toContain('endpoint="/x"');
  });
});
