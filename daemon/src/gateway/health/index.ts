export { createHealthMonitor, type HealthMonitorOptions } from './health-monitor.js';
