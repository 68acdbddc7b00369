import { initTRPC } from '@trpc/server';
import type { EventBus } from './event-bus.js';
import type { SystemStatus } from './client-types.js';

/** What the control API can reach in the daemon; each area adds its own service here. */
export interface ControlServices {
  status(): Promise<SystemStatus>;
  events: EventBus;
}

export interface ControlContext {
  services: ControlServices;
}

const t = initTRPC.context<ControlContext>().create();

export const router = t.router;
/** Every procedure is authenticated before the context exists (see server.ts), so one kind is enough. */
export const procedure = t.procedure;
