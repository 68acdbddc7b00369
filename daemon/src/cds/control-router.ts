import { tracked } from '@trpc/server';
import { areaService, procedure, router, serviceKey } from '../control/trpc.js';
import type { ClustersControl } from './control-service.js';

export const CLUSTERS_SERVICE = serviceKey<ClustersControl>('clusters');

let changeSeq = 0;

export const clustersRouter = router({
  /** The current snapshot: version, clusters with their endpoint and health, skipped backends. */
  list: procedure.query(({ ctx }) => areaService(ctx, CLUSTERS_SERVICE).list()),
  /** Every open discovery stream: node, kind, subscriptions, last version sent, last ACK and NACK. */
  clients: procedure.query(({ ctx }) => areaService(ctx, CLUSTERS_SERVICE).clients()),
  /**
   * A tick per snapshot or client change (coalesced); consoles refetch list/clients on each.
   * Ids are tracked so a reconnecting console resumes instead of replaying.
   */
  changes: procedure.subscription(async function* clustersChanges({ ctx, signal }) {
    for await (const change of areaService(ctx, CLUSTERS_SERVICE).changes(signal)) {
      changeSeq += 1;
      yield tracked(String(changeSeq), change);
    }
  }),
});

/** Cluster discovery's part of the control API. */
export const CDS_ROUTERS = { clusters: clustersRouter };
