import { tracked } from '@trpc/server';
import { areaService, procedure, router } from '../control/trpc.js';

let changeSeq = 0;

export const clustersRouter = router({
  /** The current snapshot: version, clusters with their endpoint and health, skipped backends. */
  list: procedure.query(({ ctx }) => areaService(ctx, 'clusters').list()),
  /** Every open discovery stream: node, kind, subscriptions, last version sent, last ACK and NACK. */
  clients: procedure.query(({ ctx }) => areaService(ctx, 'clusters').clients()),
  /**
   * A tick per snapshot or client change (coalesced); consoles refetch list/clients on each.
   * Ids are tracked so a reconnecting console resumes instead of replaying.
   */
  changes: procedure.subscription(async function* clustersChanges({ ctx, signal }) {
    for await (const change of areaService(ctx, 'clusters').changes(signal)) {
      changeSeq += 1;
      yield tracked(String(changeSeq), change);
    }
  }),
});
