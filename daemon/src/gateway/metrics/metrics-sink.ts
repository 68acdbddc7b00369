/**
 * A log sink decorator that counts every record before the inner sink sees it: the inner
 * sink drops records below `log_level` (access lines are `info`), and metrics must count
 * them all the same. A configurable inner sink stays configurable through the decorator.
 */
import type { GatewayLogRecord, GatewayLogSink } from '../contracts.js';
import type { BackendLogInput } from '../backend/backend-log.js';
import type { AccessRecordInput } from '../logs/access-record.js';
import { isConfigurableLogSink, logAccess, logBackend, type ConfigurableLogSink, type LogSinkSettings } from '../logs/log-sink.js';
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
  // Records given by their parts are counted from the parts and passed on as parts: built only if the inner sink writes them.
  const writeAccess = function countAccessThenLog(entry: AccessRecordInput): void {
    try {
      metrics.observeAccess(entry);
    } catch {
      // As above.
    }
    logAccess(inner, entry);
  };
  const writeBackend = function countBackendThenLog(entry: BackendLogInput): void {
    try {
      metrics.observeBackend(entry);
    } catch {
      // As above.
    }
    logBackend(inner, entry);
  };
  if (!isConfigurableLogSink(inner)) return { write, writeAccess, writeBackend };
  const configurable: ConfigurableLogSink = {
    write,
    writeAccess,
    writeBackend,
    configure(settings: LogSinkSettings) {
      inner.configure(settings);
    },
    get settings() {
      return inner.settings;
    },
  };
  return configurable;
}
