import type { DeliveryCounts } from '@portico/daemon/control';
import { daemonAnswered } from '../api/failure-text';
import { useControlQuery } from '../api/use-control-query';

const REFRESH_MS = 5_000;

/**
 * Deliveries per status, re-read on every delivery event and every 5 s (workers in other
 * processes write too); null until known, and while this daemon process serves no deliveries.
 * While the link is down the last counts stay.
 */
export function useDeliveryCounts(): DeliveryCounts | null {
  const counts = useControlQuery(
    // Refused (no deliveries in this process): nothing to count. Unreachable: keep the last counts.
    (c) => c.deliveries.counts.query().catch((e: unknown) => (daemonAnswered(e) ? null : Promise.reject(e))),
    [],
    { pollMs: REFRESH_MS, refetchOn: ['delivery.state'] },
  );
  return counts.data;
}
