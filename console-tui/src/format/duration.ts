import { formatClock, formatClockOrDate, formatDateTime, pad2 } from '@portico/daemon/control/display';

export { formatClock, formatClockOrDate, formatDateTime };

/** Compact human duration: `42s`, `5m 03s`, `2h 07m`, `3d 04h`. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3_600);
  const minutes = Math.floor((s % 3_600) / 60);
  const seconds = s % 60;
  if (days > 0) return `${days}d ${pad2(hours)}h`;
  if (hours > 0) return `${hours}h ${pad2(minutes)}m`;
  if (minutes > 0) return `${minutes}m ${pad2(seconds)}s`;
  return `${seconds}s`;
}


/** Seconds from an ISO timestamp to `nowMs`, never negative. */
export function secondsSince(iso: string, nowMs: number): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : Math.max(0, (nowMs - t) / 1000);
}

