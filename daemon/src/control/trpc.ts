import { initTRPC, TRPCError } from '@trpc/server';
import type { EventBus } from './event-bus.js';
import type { SystemStatus } from './client-types.js';

/**
 * What the control API can reach in the daemon. Each area adds an optional field for its own
 * service (set by the area's install when the mode runs it) and reads it with `areaService`.
 */
export interface ControlServices {
  status(): Promise<SystemStatus>;
  events: EventBus;
  jobs?: import('../ingest/ingest-control.js').IngestControl;
  deliveries?: import('../ingest/ingest-control.js').IngestControl;
  infosessions?: import('../infosessions/control-service.js').InfosessionsControl;
  keys?: import('../infosessions/control-service.js').KeysControl;
  clusters?: import('../cds/control-service.js').ClustersControl;
  config?: import('../gateway/control/config-control.js').ConfigControl;
  backends?: import('../gateway/control/backends-control.js').BackendsControl;
}

export interface ControlContext {
  services: ControlServices;
}

const t = initTRPC.context<ControlContext>().create();

export const router = t.router;
/** Every procedure is authenticated before the context exists (see server.ts), so one kind is enough. */
export const procedure = t.procedure;

/** The area's service, or a clear error when this daemon process does not run that area. */
export function areaService<K extends keyof ControlServices>(ctx: ControlContext, key: K): NonNullable<ControlServices[K]> {
  const service = ctx.services[key];
  if (service === undefined || service === null) {
    throw new TRPCError({ code: 'PRECONDITION_FAILED', message: `${String(key)} does not run in this daemon process; start it with --mode all or the mode that runs it` });
  }
  return service as NonNullable<ControlServices[K]>;
}
