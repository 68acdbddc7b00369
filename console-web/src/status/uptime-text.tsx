import { currentUptimeSeconds, type LiveState } from '../live/live-state';
import { useNow } from '../live/use-now';
import { formatUptime } from './time-format';

/** Ticks every second while live; its own component so only it re-renders each second. */
export function UptimeText({ live }: { live: LiveState }) {
  const now = useNow(1_000, live.link === 'live');
  const seconds = currentUptimeSeconds(live, now);
  return <span data-testid="uptime">{seconds === null ? '—' : formatUptime(seconds)}</span>;
}
