import { systemRouter } from '../control/system-router.js';
import { router } from '../control/trpc.js';
import { AREA_ROUTERS } from './areas.js';

/** The control API: the daemon's own `system` router and every area's routers. */
export const appRouter = router({
  system: systemRouter,
  ...AREA_ROUTERS,
});

export type AppRouter = typeof appRouter;
export type * from '../control/client-types.js';
export type * from '../ingest/control-types.js';
export type * from '../infosessions/control-types.js';
export type * from '../cds/control-types.js';
export type * from '../gateway/control/control-types.js';
export { DAEMON_EVENT_TYPES, DAEMON_MODES, EVENT_LEVELS } from '../control/client-types.js';
