// The consoles' one time format and the uptime text live in the shared display layer.
export { formatClock, formatClockOrDate, formatDateTime, formatUptime } from '@portico/daemon/display';
