import { z } from 'zod';
import { areaService, found, procedure, router, serviceKey } from '../control/trpc.js';
import { DELIVERY_STATUSES, JOB_KINDS, JOB_STATUSES } from './types.js';
import type { IngestControl } from './control-service.js';

/** jobs.* and deliveries.* share one service: every ingest part attaches the same one. */
export const INGEST_SERVICE = serviceKey<IngestControl>('ingest');

const page = { limit: z.number().int().min(1).max(500).default(50), offset: z.number().int().min(0).default(0) };
const id = z.uuid();
const actor = z.string().trim().min(1).max(200).default('control-api');

const selector = z.strictObject({
  ids: z.array(id).max(10_000).optional(),
  jobId: id.optional(),
  url: z.string().max(2048).optional(),
  tenantId: z.string().max(128).optional(),
  all: z.boolean().optional(),
});

export const jobsRouter = router({
  list: procedure
    .input(z.object({ status: z.enum(JOB_STATUSES).optional(), jobKind: z.enum(JOB_KINDS).optional(), datasetId: id.optional(), tenantId: z.string().max(128).optional(), ...page }))
    .query(({ ctx, input }) => areaService(ctx, INGEST_SERVICE).listJobs(input)),
  get: procedure.input(z.object({ id })).query(async ({ ctx, input }) => found(await areaService(ctx, INGEST_SERVICE).getJob(input.id), `job ${input.id}`)),
  cancel: procedure
    .input(z.object({ id, actor }))
    .mutation(async ({ ctx, input }) => found(await areaService(ctx, INGEST_SERVICE).cancelJob(input.id, input.actor), `job ${input.id}`)),
});

export const deliveriesRouter = router({
  list: procedure
    .input(z.object({ status: z.enum(DELIVERY_STATUSES).optional(), jobId: id.optional(), url: z.string().max(2048).optional(), tenantId: z.string().max(128).optional(), ...page }))
    .query(({ ctx, input }) => areaService(ctx, INGEST_SERVICE).listDeliveries(input)),
  /** One delivery with its attempt log (time, duration, status, error, first 2 KiB of the answer). */
  get: procedure.input(z.object({ id })).query(async ({ ctx, input }) => found(await areaService(ctx, INGEST_SERVICE).getDelivery(input.id), `delivery ${input.id}`)),
  /** Deliveries per status over every tenant (the consoles' DEAD count). */
  counts: procedure.query(({ ctx }) => areaService(ctx, INGEST_SERVICE).countDeliveries()),
  /** A PENDING delivery due now, so the next poll of a callback worker attempts it; audited like a reset. */
  retryNow: procedure
    .input(z.object({ id, actor }))
    .mutation(async ({ ctx, input }) => found(await areaService(ctx, INGEST_SERVICE).retryNow(input.id, input.actor), `delivery ${input.id}`)),
  /** How many DEAD rows `resetDead` with the same selector would move. */
  previewReset: procedure.input(selector).query(({ ctx, input }) => areaService(ctx, INGEST_SERVICE).previewReset(input)),
  resetDead: procedure
    .input(selector.extend({ actor }))
    .mutation(({ ctx, input }) => {
      const { actor: who, ...sel } = input;
      return areaService(ctx, INGEST_SERVICE).resetDead(sel, who);
    }),
});

/** The ingest area's part of the control API. */
export const INGEST_ROUTERS = { jobs: jobsRouter, deliveries: deliveriesRouter };
