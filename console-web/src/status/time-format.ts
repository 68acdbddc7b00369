import { formatClock, formatClockOrDate, formatDateTime, pad2 } from '@portico/daemon/control/display';

export { formatClock, formatClockOrDate, formatDateTime };


/** Uptime with seconds, so it visibly ticks: `42s`, `5m 03s`, `2h 07m 05s`, `3d 04h 05m`. */
export function formatUptime(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3_600);
  const minutes = Math.floor((s % 3_600) / 60);
  const seconds = s % 60;
  if (days > 0) return `${days}d ${pad2(hours)}h ${pad2(minutes)}m`;
  if (hours > 0) return `${hours}h ${pad2(minutes)}m ${pad2(seconds)}s`;
  if (minutes > 0) return `${minutes}m ${pad2(seconds)}s`;
  return `${seconds}s`;
}

