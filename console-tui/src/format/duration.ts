// The consoles' one time format and their durations live in the shared display layer.
export { formatClock, formatClockOrDate, formatDateTime, formatDuration, secondsSince } from '@portico/daemon/display';
