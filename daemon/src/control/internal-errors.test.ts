import { TRPCClientError } from '@trpc/client';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { PorticoError } from '../core/errors.js';
import { Logger } from '../core/logger.js';
import { appRouter } from '../main/app-router.js';
import { startAppApi, testServices } from '../main/testing/control-server.js';
import type { EventBus } from './event-bus.js';
import { startControlServer, type ControlServer } from './server.js';
import { ControlServices, procedure, router } from './trpc.js';

const TOKEN = 'test-token-0123456789abcdef';
const RAW = 'SQLITE_CORRUPT: database disk image is malformed (/var/lib/portico/portico.db, SELECT * FROM ingest_jobs)';
const ID_MESSAGE = /^internal error ([0-9a-f]{8}); the daemon log has the details under error_id \1$/;

/** What a control API call failed with, as its client sees it. */
async function failure(call: () => Promise<unknown>): Promise<{ code: string | undefined; message: string; stack: unknown }> {
  try {
    await call();
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const data = error.data as { code?: string; stack?: unknown } | undefined;
    return { code: data?.code, message: error.message, stack: data?.stack };
  }
  throw new Error('the call did not fail');
}

function capturingLogger(): { logger: Logger; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = [];
  const logger = new Logger({ format: 'json', level: 'debug', sink: { write: (line) => written.push(line) } });
  return { logger, lines: () => written.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe('internal errors through the control API', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it.each([
    ['an error that is not a PorticoError', new Error(RAW)],
    ['a PorticoError of category internal', new PorticoError('store_broken', RAW)],
  ])('answers %s with an id only, and the log has the error under that id', async (_kind, thrown) => {
    const { logger, lines } = capturingLogger();
    const services = new ControlServices(async () => {
      throw thrown;
    }, testServices().events);
    const server = await startControlServer({ host: '127.0.0.1', port: 0, token: TOKEN, services, router: appRouter, logger });
    closers.push(() => server.close());
    const res = await fetch(`${server.url}/trpc/system.status`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    const body = await res.text();
    expect(res.status).toBe(500);
    expect(body).not.toContain('portico.db');
    expect(body).not.toContain('SQLITE_CORRUPT');
    const message = (JSON.parse(body) as { error: { message: string } }).error.message;
    const id = ID_MESSAGE.exec(message)?.[1];
    expect(id).toBeDefined();
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'error', message: 'control API call failed', path: 'system.status', error_id: id, error: RAW }));
  });

  it('answers through the clients the consoles use, without stack traces, and keeps errors meant for the caller', async () => {
    const services = new ControlServices(async () => {
      throw new Error(RAW);
    }, testServices().events);
    const app = await startAppApi(services, TOKEN);
    closers.push(() => app.close());
    const failed = await failure(() => app.api.system.status.query());
    expect(failed).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: expect.stringMatching(ID_MESSAGE) });
    expect(failed.stack).toBeUndefined();
    // Bad input is the caller's to fix: its message stays.
    const invalid = await failure(
      () =>
        new Promise((resolve, reject) => {
          const sub = app.api.system.events.subscribe({ backlog: 100_000 }, { onError: reject, onComplete: () => resolve(undefined) });
          closers.push(async () => sub.unsubscribe());
        }),
    );
    expect(invalid).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('backlog') });
  });

  it('answers a subscription that fails mid-stream with an id only, and logs it under that id', async () => {
    const { logger, lines } = capturingLogger();
    const failingEvents = {
      stream: async function* failingStream() {
        throw new Error(RAW);
      },
    } as unknown as EventBus;
    const testRouter = router({
      events: procedure.input(z.object({}).optional()).subscription(async function* events({ ctx }) {
        for await (const event of ctx.services.events.stream(null, undefined, 0)) yield event;
      }),
    });
    const server: ControlServer = await startControlServer({ host: '127.0.0.1', port: 0, token: TOKEN, services: new ControlServices(async () => ({}) as never, failingEvents), router: testRouter, logger });
    closers.push(() => server.close());
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/trpc?connectionParams=1`);
    closers.push(async () => socket.close());
    await new Promise((r) => socket.once('open', r));
    const messages: Array<{ id?: number; error?: { message: string; data?: { stack?: unknown } } }> = [];
    socket.on('message', (m: Buffer) => messages.push(JSON.parse(m.toString()) as (typeof messages)[number]));
    socket.send(JSON.stringify({ method: 'connectionParams', data: { token: TOKEN } }));
    socket.send(JSON.stringify({ id: 1, method: 'subscription', params: { path: 'events', input: {} } }));
    await expect.poll(() => messages.find((m) => m.id === 1 && m.error)).toBeDefined();
    const error = messages.find((m) => m.id === 1 && m.error)!.error!;
    expect(JSON.stringify(error)).not.toContain('portico.db');
    expect(error.data?.stack).toBeUndefined();
    const id = ID_MESSAGE.exec(error.message)?.[1];
    expect(id).toBeDefined();
    expect(lines()).toContainEqual(expect.objectContaining({ level: 'error', message: 'control API call failed', path: 'events', error_id: id, error: RAW }));
  });
});
