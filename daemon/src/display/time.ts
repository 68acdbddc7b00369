// The consoles' one time format (local 24-hour, with the date when not today) and their durations.

/** Local wall-clock time `HH:MM:SS` of an ISO timestamp; the raw text if it does not parse. */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`;
}

/** Local `YYYY-MM-DD HH:MM:SS` of an ISO timestamp; the raw text if it does not parse. */
export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${formatClock(iso)}`;
}

/** Local `HH:MM:SS` when `iso` falls on the local day of `nowMs`, else `YYYY-MM-DD HH:MM:SS`: a bare time from yesterday reads as today's. */
export function formatClockOrDate(iso: string, nowMs: number): string {
  return new Date(iso).toDateString() === new Date(nowMs).toDateString() ? formatClock(iso) : formatDateTime(iso);
}

export function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

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

/** Seconds from an ISO timestamp to `nowMs`, never negative. */
export function secondsSince(iso: string, nowMs: number): number {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? 0 : Math.max(0, (nowMs - t) / 1000);
}

/** `4s ago`, `2m 10s ago`, or `never`. */
export function agoText(iso: string | null, nowMs: number): string {
  return iso ? `${formatDuration(secondsSince(iso, nowMs))} ago` : 'never';
}

/** How long something took (a reload, a delivery attempt): `340 ms`, `1.25 s`, `12.3 s`. */
export function tookText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}
