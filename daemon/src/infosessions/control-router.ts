import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { areaService, procedure, router } from '../control/trpc.js';
import { ApiKeyError } from './api-keys.js';
import { sessionQuerySchema } from './session-query.js';

export const infosessionsRouter = router({
  /** Loaded sessions with search (employer, description), date range, audience, sort and paging. */
  list: procedure.input(sessionQuerySchema.optional()).query(({ ctx, input }) => areaService(ctx, 'infosessions').list(input ?? {})),
  /** The CSV files: loaded at, rows, rejected rows with reasons, the last error. */
  source: procedure.query(({ ctx }) => areaService(ctx, 'infosessions').source()),
  reload: procedure.mutation(({ ctx }) => areaService(ctx, 'infosessions').reload()),
});

const keyId = z.object({ id: z.string().trim().min(1).max(64) });

/** Runs a key operation, turning its errors into tRPC codes the clients branch on. */
async function keyCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiKeyError) {
      throw new TRPCError({ code: error.code === 'key_not_found' ? 'NOT_FOUND' : 'CONFLICT', message: error.message, cause: error });
    }
    throw error;
  }
}

export const keysRouter = router({
  list: procedure.query(({ ctx }) => areaService(ctx, 'keys').list()),
  /** The answer holds the key itself; it is never shown again. */
  create: procedure
    .input(z.object({ name: z.string().trim().min(1, 'name must not be empty').max(100), monthlyLimit: z.number().int().min(0).nullish() }))
    .mutation(({ ctx, input }) => keyCall(() => areaService(ctx, 'keys').create(input))),
  ban: procedure.input(keyId).mutation(({ ctx, input }) => keyCall(() => areaService(ctx, 'keys').ban(input.id))),
  unban: procedure.input(keyId).mutation(({ ctx, input }) => keyCall(() => areaService(ctx, 'keys').unban(input.id))),
  revoke: procedure.input(keyId).mutation(({ ctx, input }) => keyCall(() => areaService(ctx, 'keys').revoke(input.id))),
});
