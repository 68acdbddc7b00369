import { tracked } from '@trpc/server';
import { z } from 'zod';
import { areaService, procedure, router, serviceKey } from '../../control/trpc.js';
import type { BackendsControl } from './backends-control.js';
import type { ConfigControl } from './config-control.js';

export const CONFIG_SERVICE = serviceKey<ConfigControl>('config');
export const BACKENDS_SERVICE = serviceKey<BackendsControl>('backends');

const resume = z.object({ lastEventId: z.string().max(200).nullish() }).optional();

export const configRouter = router({
  /** The serving files with their SHA-256, when they were applied, the last reload and what is watched. */
  status: procedure.query(({ ctx }) => areaService(ctx, CONFIG_SERVICE).status()),
  /** The last 50 reloads, newest first. */
  history: procedure.query(({ ctx }) => areaService(ctx, CONFIG_SERVICE).history()),
  /** The serving configuration's source per file, every secret value shown as `"***"`. */
  active: procedure.query(({ ctx }) => areaService(ctx, CONFIG_SERVICE).active()),
  /** The serving routes with the access controls that guard each after inheritance (labels and kinds, no secrets). */
  routes: procedure.query(({ ctx }) => areaService(ctx, CONFIG_SERVICE).routes()),
  /** Checks a candidate text (alone, or in place of the active file `file`) without applying it. */
  validate: procedure
    .input(z.object({ text: z.string().max(4 * 1024 * 1024, 'the text is over 4 MiB'), file: z.string().trim().min(1).max(4096).optional() }))
    .mutation(({ ctx, input }) => areaService(ctx, CONFIG_SERVICE).validate(input)),
  /** Reloads now (after a reload under way); the answer is its record: applied, rejected with diagnostics, or failed. */
  reload: procedure.mutation(({ ctx }) => areaService(ctx, CONFIG_SERVICE).reload()),
  /** Each reload record; pass the last id seen to resume after a reconnect. */
  changes: procedure.input(resume).subscription(async function* configChanges({ ctx, input, signal }) {
    for await (const record of areaService(ctx, CONFIG_SERVICE).changes(input?.lastEventId, signal)) yield tracked(record.id, record);
  }),
});

export const backendsRouter = router({
  /** Every backend of the serving configuration with its health and the endpoints using it. */
  list: procedure.query(({ ctx }) => areaService(ctx, BACKENDS_SERVICE).list()),
  /** Health state changes, newest first. */
  timeline: procedure.query(({ ctx }) => areaService(ctx, BACKENDS_SERVICE).timeline()),
  /** Each finished health check and state change; pass the last id seen to resume after a reconnect. */
  changes: procedure.input(resume).subscription(async function* backendChanges({ ctx, input, signal }) {
    for await (const update of areaService(ctx, BACKENDS_SERVICE).changes(input?.lastEventId, signal)) yield tracked(update.id, update);
  }),
});

/** The gateway's part of the control API. */
export const GATEWAY_ROUTERS = { config: configRouter, backends: backendsRouter };
