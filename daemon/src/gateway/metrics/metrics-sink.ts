/**
 * A log sink decorator that counts every record before the inner sink sees it: the inner
 * sink drops records below `log_level` (access lines are `info`), and metrics must count
 * them all the same. A configurable inner sink stays configurable through the decorator.
 */
import type { GatewayLogRecord, GatewayLogSink } from '../contracts.js';
import { isConfigurableLogSink, type ConfigurableLogSink, type LogSinkSettings } from '../logs/log-sink.js';
import type { GatewayMetrics } from './gateway-metrics.js';

export function createMetricsSink(inner: ConfigurableLogSink, metrics: GatewayMetrics): ConfigurableLogSink;
export function createMetricsSink(inner: GatewayLogSink, metrics: GatewayMetrics): GatewayLogSink;
export function createMetricsSink(inner: GatewayLogSink, metrics: GatewayMetrics): GatewayLogSink {
  const write = function writeMetricsThenLog(record: GatewayLogRecord): void {
    try {
      metrics.observe(record);
    } catch {
      // Counting is best effort: a record it cannot read must still be logged and the request must not fail.
    }
    inner.write(record);
  };
  if (!isConfigurableLogSink(inner)) return { write };
  const configurable: ConfigurableLogSink = {
    write,
    configure(settings: LogSinkSettings) {
      inner.configure(settings);
    },
    get settings() {
      return inner.settings;
    },
  };
  return configurable;
}
