export { createGatewayMetrics, type GatewayMetrics, type GatewayMetricsOptions, type ReloadResult } from './gateway-metrics.js';
export { createMetricsSink } from './metrics-sink.js';
export { MetricsExporter, METRICS_PATH, type MetricsExporterOptions, type PreparedMetrics } from './metrics-exporter.js';
export { EXPOSITION_CONTENT_TYPE } from './exposition.js';
