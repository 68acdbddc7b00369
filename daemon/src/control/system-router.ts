import { tracked } from '@trpc/server';
import { z } from 'zod';
import { procedure, router } from './trpc.js';

export const systemRouter = router({
  status: procedure.query(({ ctx }) => ctx.services.status()),

  /**
   * Daemon events. A client that reconnects passes its last id and gets what it missed; a new
   * client may ask for the newest `backlog` buffered events first.
   */
  events: procedure
    .input(z.object({ lastEventId: z.string().max(200).nullish(), backlog: z.number().int().min(0).max(500).optional() }).optional())
    .subscription(async function* eventsSubscription({ ctx, input, signal }) {
      for await (const event of ctx.services.events.stream(input?.lastEventId, signal, input?.backlog ?? 0)) {
        yield tracked(event.id, event);
      }
    }),
});
