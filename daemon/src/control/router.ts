import { infosessionsRouter, keysRouter } from '../infosessions/control-router.js';
import { systemRouter } from './system-router.js';
import { router } from './trpc.js';

export const appRouter = router({
  system: systemRouter,
  infosessions: infosessionsRouter,
  keys: keysRouter,
});

export type AppRouter = typeof appRouter;
export type * from './client-types.js';
export { DAEMON_MODES } from './client-types.js';
