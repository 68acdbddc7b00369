import { describe, expect, it } from 'vitest';
import { Logger } from '../core/logger.js';
import { testDatabases } from '../store/testing/databases.js';
import { DEFAULT_RETRY_SCHEDULE, formatRetrySchedule, parseRetrySchedule } from './backoff.js';
import { readIngestSettings } from './ingest-settings.js';
import type { AttemptRow, OutboxRow } from './records.js';
import { callbackRigPerTest, T0 } from './testing/callback-rig.js';
import { seedFinishedJob } from './testing/ingest-fixture.js';

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

describe.each(factories.map((f) => [f.kind, f] as const))('a configured retry schedule on %s', (_kind, factory) => {
  const logged: Array<Record<string, unknown>> = [];
  const logger = new Logger({ level: 'info', format: 'json', sink: { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) } });
  const rig = callbackRigPerTest(factory, {
    worker: () => {
      logged.length = 0; // before the worker starts: its start line belongs to this test's log
      return { logger, retrySchedule: parseRetrySchedule('0s,1s,250ms') };
    },
  });

  const row = async () => (await rig.store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox'))!;

  it('waits as the schedule says, each wait measured from the failure, and makes the row DEAD after its last entry', async () => {
    await seedFinishedJob(rig.store, { url: rig.receiver.url }, 'SUCCEEDED', T0);
    rig.receiver.reply = () => ({ status: 503 });
    expect(await rig.worker.runOnce()).toBe(1);
    expect(await row()).toMatchObject({ status: 'PENDING', attempts: 1, next_attempt_at: T0 + 1000 });
    rig.now = T0 + 999;
    expect(await rig.worker.runOnce(), 'not due before the 1 s wait').toBe(0);
    rig.now = T0 + 1000;
    expect(await rig.worker.runOnce()).toBe(1);
    expect(await row()).toMatchObject({ status: 'PENDING', attempts: 2, next_attempt_at: T0 + 1250 });
    rig.now = T0 + 1250;
    expect(await rig.worker.runOnce()).toBe(1);
    expect(await row()).toMatchObject({ status: 'DEAD', attempts: 3, finished_at: T0 + 1250 });
    rig.now += 365 * 24 * 3600_000;
    expect(await rig.worker.runOnce()).toBe(0);
    expect(rig.receiver.received).toHaveLength(3);
    expect((await rig.store.all<AttemptRow>('SELECT attempt FROM ingest_callback_attempts ORDER BY attempt')).map((a) => Number(a.attempt))).toEqual([1, 2, 3]);
    expect(logged.find((l) => l.message === 'callback_worker_started')).toMatchObject({ retry_schedule: '0s,1s,250ms' });
    const failures = logged.filter((l) => l.message === 'callback_attempt_failed');
    expect(failures.map((l) => [l.attempts, l.terminal])).toEqual([
      ['1/3', false],
      ['2/3', false],
      ['3/3', true],
    ]);
  });

  it('logs a refused connection once by its error, with no status (there was no HTTP answer)', async () => {
    const refused = new URL(rig.receiver.url);
    refused.port = '1'; // nothing listens on port 1 of loopback
    await seedFinishedJob(rig.store, { url: refused.href }, 'SUCCEEDED', T0);
    expect(await rig.worker.runOnce()).toBe(1);
    const failure = logged.find((l) => l.message === 'callback_attempt_failed')!;
    expect(failure).not.toHaveProperty('status');
    expect(failure['error']).toMatch(/^connect ECONNREFUSED 127\.0\.0\.1:1\b/);
  });
});

