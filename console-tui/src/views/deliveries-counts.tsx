import type { ReactNode } from 'react';
import { Text } from 'ink';
import type { DeliveryCounts } from '@portico/daemon/control';
import { daemonRefused } from '../control/control-problem.js';
import type { ControlSource } from '../control/control-source.js';
import { truncate } from '../format/fit.js';
import type { LiveState } from '../live/live-store.js';
import { Tinted } from '../shell/theme.js';
import { deliveryLabel, plural } from '@portico/daemon/display';
import { lastEventOf, useControlQuery } from './use-control-query.js';

const REFRESH_MS = 5_000;

/**
 * Deliveries per status, re-read on every delivery event and every 5 s (workers in other
 * processes); null while unknown, or when this daemon process serves no deliveries. After any
 * other failed read (the daemon away, a timeout) the last counts stay, stale like the rest of the screen.
 */
export function useDeliveryCounts({ live, source, visible, nowMs }: { live: LiveState; source: ControlSource; visible: boolean; nowMs: number }): DeliveryCounts | null {
  const api = source.api;
  const changed = lastEventOf(live.events, ['delivery.state']);
  const tick = Math.floor(nowMs / REFRESH_MS);
  // Refused (no deliveries in this process): nothing to count. Any other failure keeps the last counts.
  const load = api ? () => api.deliveries.counts.query().catch((e: unknown) => (daemonRefused(e) ? null : Promise.reject(e))) : null;
  const query = useControlQuery(visible, load, [changed, tick, live.status.bootId]);
  return query.data;
}

/** `✗ 2 DEAD deliveries · ◐ 1 PENDING · ● 14 DELIVERED`, the DEAD part tinted when there are any. */
export function DeliveryCountsText({ counts, width }: { counts: DeliveryCounts; width: number }): ReactNode {
  const dead = `${deliveryLabel('DEAD').glyph} ${plural(counts.DEAD, 'DEAD delivery', 'DEAD deliveries')}`;
  const rest = ` · ${deliveryLabel('PENDING').glyph} ${counts.PENDING} PENDING · ${deliveryLabel('DELIVERED').glyph} ${counts.DELIVERED} DELIVERED${counts.DEAD > 0 ? ' · :deliveries' : ''}`;
  return (
    <Text>
      <Tinted tone={counts.DEAD > 0 ? 'bad' : 'idle'}>{truncate(dead, width)}</Tinted>
      {truncate(rest, Math.max(0, width - dead.length))}
    </Text>
  );
}
