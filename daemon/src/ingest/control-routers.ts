import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { areaService, procedure, router } from '../control/trpc.js';
import { ApiError } from './api-error.js';
import { SelectorError } from './ingest-control.js';
import { DELIVERY_STATUSES, JOB_KINDS, JOB_STATUSES } from './types.js';

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

/** Turns the ingest area's errors into tRPC codes; anything else stays an internal error. */
async function mapped<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SelectorError) throw new TRPCError({ code: 'BAD_REQUEST', message: error.message, cause: error });
    if (error instanceof ApiError) {
      const code = error.status === 404 ? 'NOT_FOUND' : error.status === 409 ? 'CONFLICT' : 'BAD_REQUEST';
      throw new TRPCError({ code, message: error.message, cause: error });
    }
    throw error;
  }
}

function found<T>(value: T | null, what: string): T {
  if (value === null) throw new TRPCError({ code: 'NOT_FOUND', message: `${what} not found` });
  return value;
}

export const jobsRouter = router({
  list: procedure
    .input(z.object({ status: z.enum(JOB_STATUSES).optional(), jobKind: z.enum(JOB_KINDS).optional(), datasetId: id.optional(), tenantId: z.string().max(128).optional(), ...page }))
    .query(({ ctx, input }) => areaService(ctx, 'jobs').listJobs(input)),
  get: procedure.input(z.object({ id })).query(async ({ ctx, input }) => found(await areaService(ctx, 'jobs').getJob(input.id), `job ${input.id}`)),
  cancel: procedure
    .input(z.object({ id, actor }))
    .mutation(({ ctx, input }) => mapped(async () => found(await areaService(ctx, 'jobs').cancelJob(input.id, input.actor), `job ${input.id}`))),
});

export const deliveriesRouter = router({
  list: procedure
    .input(z.object({ status: z.enum(DELIVERY_STATUSES).optional(), jobId: id.optional(), url: z.string().max(2048).optional(), tenantId: z.string().max(128).optional(), ...page }))
    .query(({ ctx, input }) => areaService(ctx, 'deliveries').listDeliveries(input)),
  /** One delivery with its attempt log (time, duration, status, error, first 2 KiB of the answer). */
  get: procedure.input(z.object({ id })).query(async ({ ctx, input }) => found(await areaService(ctx, 'deliveries').getDelivery(input.id), `delivery ${input.id}`)),
  /** How many DEAD rows `resetDead` with the same selector would move. */
  previewReset: procedure.input(selector).query(({ ctx, input }) => mapped(() => areaService(ctx, 'deliveries').previewReset(input))),
  resetDead: procedure
    .input(selector.extend({ actor }))
    .mutation(({ ctx, input }) => {
      const { actor: who, ...sel } = input;
      return mapped(() => areaService(ctx, 'deliveries').resetDead(sel, who));
    }),
});
