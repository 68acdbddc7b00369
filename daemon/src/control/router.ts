import { backendsRouter, configRouter } from '../gateway/control/routers.js';
import { clustersRouter } from '../cds/control-router.js';
import { infosessionsRouter, keysRouter } from '../infosessions/control-router.js';
import { deliveriesRouter, jobsRouter } from '../ingest/control-routers.js';
import { systemRouter } from './system-router.js';
import { router } from './trpc.js';

export const appRouter = router({
  system: systemRouter,
  jobs: jobsRouter,
  deliveries: deliveriesRouter,
  infosessions: infosessionsRouter,
  keys: keysRouter,
  config: configRouter,
  backends: backendsRouter,
  clusters: clustersRouter,
});

export type AppRouter = typeof appRouter;
export type * from './client-types.js';
export type * from '../ingest/control-types.js';
export type * from '../infosessions/control-types.js';
export type * from '../cds/control-types.js';
export type * from '../gateway/control/control-types.js';
export { DAEMON_MODES } from './client-types.js';
