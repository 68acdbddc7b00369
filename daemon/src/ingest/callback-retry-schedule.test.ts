import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Logger } from '../core/logger.js';
import { testDatabases, type TestDatabase } from '../store/testing/databases.js';
import type { Store } from '../store/types.js';
import { DEFAULT_RETRY_SCHEDULE, formatRetrySchedule, parseRetrySchedule } from './backoff.js';
import type { CallbackWorker } from './callback-worker.js';
import { readIngestSettings } from './ingest-settings.js';
import type { AttemptRow, OutboxRow } from './records.js';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from './testing/https-receiver.js';
import { migratedStore, seedFinishedJob, testWorker } from './testing/ingest-fixture.js';

describe('SERVICE_CALLBACK_RETRY_SCHEDULE', () => {
  it('defaults to the spec table: 0 s, 30 s, 5 min, 1 h, 6 h, so DEAD after 5 attempts', () => {
    expect(readIngestSettings({}).retrySchedule).toEqual([0, 30_000, 300_000, 3_600_000, 21_600_000]);
    expect(readIngestSettings({ SERVICE_CALLBACK_RETRY_SCHEDULE: '  ' }).retrySchedule).toBe(DEFAULT_RETRY_SCHEDULE);
    expect(formatRetrySchedule(DEFAULT_RETRY_SCHEDULE)).toBe('0s,30s,5m,1h,6h');
  });

  it('takes the waits before each attempt as durations, its length being the attempts before DEAD', () => {
    expect(readIngestSettings({ SERVICE_CALLBACK_RETRY_SCHEDULE: '0s, 250ms, 1.5, 2m' }).retrySchedule).toEqual([0, 250, 1500, 120_000]);
    expect(parseRetrySchedule('0')).toEqual([0]);
    expect(formatRetrySchedule([0, 250, 1500, 120_000])).toBe('0s,250ms,1500ms,2m');
  });

  it.each([
    ['30s,1m', "entry 1 is '30s' but must be 0s: it is the wait before the first attempt, which is due when the job finishes; e.g. 0s,30s,5m,1h,6h (the default)"],
    ['0s,30s,5x', "entry 3: '5x' is not a duration; write a number and a unit (ns, us, ms, s, m, h), e.g. 5s or 1m30s; the schedule is a comma list, e.g. 0s,30s,5m,1h,6h (the default)"],
    ['0s,,1m', 'entry 2 is empty; write the waits before each attempt separated by commas, e.g. 0s,30s,5m,1h,6h (the default)'],
    ['0s,-1s', "entry 2: '-1s' is not a duration"],
    ['0s,200h', "entry 2 '200h' is longer than 168h (7 days)"],
    [Array(21).fill('0s').join(','), 'has 21 entries; at most 20 attempts per round are allowed'],
  ])('refuses %j at start, naming the variable, the entry and what to write', (value, message) => {
    let thrown: unknown;
    try {
      readIngestSettings({ SERVICE_CALLBACK_RETRY_SCHEDULE: value });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toContain('bad environment for the ingest service:\n  SERVICE_CALLBACK_RETRY_SCHEDULE: ');
    expect((thrown as Error).message).toContain(message);
  });
});

const factories = await testDatabases();
const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
let tls: TestTls;
beforeAll(() => {
  tls = makeTestTls();
});
afterAll(() => tls.dispose());

describe.each(factories.map((f) => [f().kind, f] as const))('a configured retry schedule on %s', (_kind, factory) => {
  let database: TestDatabase;
  let store: Store;
  let receiver: TestReceiver;
  let now: number;
  let worker: CallbackWorker;
  const logged: Array<Record<string, unknown>> = [];
  beforeEach(async () => {
    database = factory();
    store = await migratedStore(database);
    receiver = await startReceiver(tls);
    now = T0;
    logged.length = 0;
    worker = testWorker(store, tls.caFile, {
      logger: new Logger({ level: 'info', format: 'json', sink: { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) } }),
      clock: () => now,
      retrySchedule: parseRetrySchedule('0s,1s,250ms'),
    });
    await worker.start();
  });
  afterEach(async () => {
    await worker.stop();
    await receiver.close();
    await store.close();
    await database.destroy();
  });

  const row = async () => (await store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox'))!;

  it('waits as the schedule says, each wait measured from the failure, and makes the row DEAD after its last entry', async () => {
    await seedFinishedJob(store, { url: receiver.url }, 'SUCCEEDED', T0);
    receiver.reply = () => ({ status: 503 });
    expect(await worker.runOnce()).toBe(1);
    expect(await row()).toMatchObject({ status: 'PENDING', attempts: 1, next_attempt_at: T0 + 1000 });
    now = T0 + 999;
    expect(await worker.runOnce(), 'not due before the 1 s wait').toBe(0);
    now = T0 + 1000;
    expect(await worker.runOnce()).toBe(1);
    expect(await row()).toMatchObject({ status: 'PENDING', attempts: 2, next_attempt_at: T0 + 1250 });
    now = T0 + 1250;
    expect(await worker.runOnce()).toBe(1);
    expect(await row()).toMatchObject({ status: 'DEAD', attempts: 3, finished_at: T0 + 1250 });
    now += 365 * 24 * 3600_000;
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(3);
    expect((await store.all<AttemptRow>('SELECT attempt FROM ingest_callback_attempts ORDER BY attempt')).map((a) => Number(a.attempt))).toEqual([1, 2, 3]);
    expect(logged.find((l) => l.message === 'callback_worker_started')).toMatchObject({ retry_schedule: '0s,1s,250ms' });
    const failures = logged.filter((l) => l.message === 'callback_attempt_failed');
    expect(failures.map((l) => [l.attempts, l.terminal])).toEqual([
      ['1/3', false],
      ['2/3', false],
      ['3/3', true],
    ]);
  });
});
