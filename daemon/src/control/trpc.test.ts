import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PorticoError, type ErrorCategory } from '../core/errors.js';
import { EventBus } from './event-bus.js';
import { areaService, ControlServices, found, procedure, router, serviceKey } from './trpc.js';

const testRouter = router({
  fail: procedure.input(z.string()).query(({ input }) => {
    const category = input as ErrorCategory;
    throw new PorticoError('test_failure', `failed as ${category}`, { category });
  }),
  missing: procedure.query(() => found(null, 'job 42')),
  raw: procedure.query(() => {
    throw new Error('no such table: ingest_jobs');
  }),
  unprovided: procedure.query(({ ctx }) => areaService(ctx, serviceKey<{ ping(): string }>('pinger')).ping()),
  provided: procedure.query(({ ctx }) => areaService(ctx, PINGER).ping()),
});
const PINGER = serviceKey<{ ping(): string }>('pinger');

function caller(services = new ControlServices(async () => ({}) as never, new EventBus('t'))) {
  return testRouter.createCaller({ services });
}

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof TRPCError) return `${error.code}: ${error.message}`;
    throw error;
  }
  throw new Error('did not fail');
}

describe('area errors become control API errors in one place', () => {
  it.each([
    ['invalid', 'BAD_REQUEST'],
    ['not_found', 'NOT_FOUND'],
    ['conflict', 'CONFLICT'],
    ['forbidden', 'FORBIDDEN'],
    ['unavailable', 'PRECONDITION_FAILED'],
  ] as const)('a PorticoError of category %s answers %s with its message', async (kind, code) => {
    expect(await codeOf(() => caller().fail(kind))).toBe(`${code}: failed as ${kind}`);
  });

  it('a PorticoError of category internal, or any other error, answers INTERNAL_SERVER_ERROR with an id, not its message', async () => {
    const internal = /^INTERNAL_SERVER_ERROR: internal error ([0-9a-f]{8}); the daemon log has the details under error_id \1$/;
    expect(await codeOf(() => caller().fail('internal'))).toMatch(internal);
    expect(await codeOf(() => caller().raw())).toMatch(internal);
  });

  it('found() turns a missing record into NOT_FOUND naming it', async () => {
    expect(await codeOf(() => caller().missing())).toBe('NOT_FOUND: job 42 not found');
  });

  it('a service the process does not run is PRECONDITION_FAILED naming it; once provided it answers', async () => {
    expect(await codeOf(() => caller().unprovided())).toMatch(/^PRECONDITION_FAILED: pinger does not run in this daemon process/);
    const services = new ControlServices(async () => ({}) as never, new EventBus('t')).provide(PINGER, { ping: () => 'pong' });
    expect(await caller(services).provided()).toBe('pong');
  });
});
