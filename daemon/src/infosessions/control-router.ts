import { z } from 'zod';
import { areaService, procedure, router, serviceKey } from '../control/trpc.js';
import { sessionQuerySchema } from './session-query.js';
import type { InfosessionsControl, KeysControl } from './control-service.js';

export const INFOSESSIONS_SERVICE = serviceKey<InfosessionsControl>('infosessions');
export const KEYS_SERVICE = serviceKey<KeysControl>('keys');

export const infosessionsRouter = router({
  /** Loaded sessions with search (employer, description), date range, audience, sort and paging. */
  list: procedure.input(sessionQuerySchema.optional()).query(({ ctx, input }) => areaService(ctx, INFOSESSIONS_SERVICE).list(input ?? {})),
  /** The CSV files: loaded at, rows, rejected rows with reasons, the last error. */
  source: procedure.query(({ ctx }) => areaService(ctx, INFOSESSIONS_SERVICE).source()),
  reload: procedure.mutation(({ ctx }) => areaService(ctx, INFOSESSIONS_SERVICE).reload()),
});

const keyId = z.object({ id: z.string().trim().min(1).max(64) });

export const keysRouter = router({
  list: procedure.query(({ ctx }) => areaService(ctx, KEYS_SERVICE).list()),
  /** The answer holds the key itself; it is never shown again. */
  create: procedure
    .input(z.object({ name: z.string().trim().min(1, 'name must not be empty').max(100), monthlyLimit: z.number().int().min(0).nullish() }))
    .mutation(({ ctx, input }) => areaService(ctx, KEYS_SERVICE).create(input)),
  ban: procedure.input(keyId).mutation(({ ctx, input }) => areaService(ctx, KEYS_SERVICE).ban(input.id)),
  unban: procedure.input(keyId).mutation(({ ctx, input }) => areaService(ctx, KEYS_SERVICE).unban(input.id)),
  revoke: procedure.input(keyId).mutation(({ ctx, input }) => areaService(ctx, KEYS_SERVICE).revoke(input.id)),
});

/** The infosessions area's part of the control API. */
export const INFOSESSIONS_ROUTERS = { infosessions: infosessionsRouter, keys: keysRouter };
