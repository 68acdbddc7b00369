import { tracked } from '@trpc/server';
import { z } from 'zod';
import { procedure, router } from './trpc.js';

export const systemRouter = router({
  status: procedure.query(({ ctx }) => ctx.services.status()),

  /** Daemon events; a client that reconnects passes its last id and gets what it missed. */
  events: procedure
    .input(z.object({ lastEventId: z.string().max(200).nullish() }).optional())
    .subscription(async function* eventsSubscription({ ctx, input, signal }) {
      for await (const event of ctx.services.events.stream(input?.lastEventId, signal)) {
        yield tracked(event.id, event);
      }
    }),
});
