import { describe, expect, it } from 'vitest';
import { testDatabases } from '../store/testing/databases.js';
import { DEFAULT_RETRY_SCHEDULE } from './backoff.js';
import { claimDue, recordAndRefill, recordAttempts, type AttemptOutcome, type AttemptToRecord, type Lease } from './outbox.js';
import type { AttemptRow, OutboxRow } from './records.js';
import { seedDeliveries } from './testing/ingest-fixture.js';
import { storePerTest } from './testing/store-per-test.js';

const factories = await testDatabases();
const URL_ = 'https://receiver.example.com/hook';
const NOW = 100_000;
const lease = (token: string): Lease => ({ owner: `worker-${token}`, token });
const answered = (status: number): AttemptOutcome => ({ ok: status < 300, statusCode: status, error: status < 300 ? null : `receiver answered HTTP ${status}`, responseBody: `body ${status}`, startedAt: NOW - 40, durationMs: 12.4 });

describe.each(factories.map((f) => [f.kind, f] as const))('recording a group of attempts on %s', (_kind, factory) => {
  const db = storePerTest(factory);

  const row = async (id: string) => (await db.store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox WHERE id = ?', [id]))!;
  const attempts = () => db.store.all<AttemptRow>('SELECT * FROM ingest_callback_attempts ORDER BY delivery_id, attempt');

  it('writes delivered, retried and dead rows and their attempts in one call; a lost lease writes nothing', async () => {
    const ids = await seedDeliveries(db.store, 4, URL_, null, 1000);
    // The third row is on the last attempt of its round: its failure makes it DEAD.
    await db.store.run('UPDATE ingest_callback_outbox SET attempts = 4 WHERE id = ?', [ids[2]!]);
    const a = lease('a');
    const claimed = await claimDue(db.store, a, NOW - 100, NOW + 60_000, 4);
    const byId = new Map(claimed.map((r) => [r.id, r]));
    // The fourth row's lease was lost: another worker took it after ours expired.
    await db.store.run("UPDATE ingest_callback_outbox SET lease_token = 'other' WHERE id = ?", [ids[3]!]);
    const items: AttemptToRecord[] = [200, 503, 500, 200].map((status, i) => ({ row: byId.get(ids[i]!)!, lease: a, outcome: answered(status), now: NOW }));

    const results = await recordAttempts(db.store, items, DEFAULT_RETRY_SCHEDULE);

    expect(results).toEqual([
      { status: 'DELIVERED', attempts: 1, attemptsInRound: 1, nextAttemptAt: null },
      { status: 'PENDING', attempts: 1, attemptsInRound: 1, nextAttemptAt: NOW + 30_000 },
      { status: 'DEAD', attempts: 5, attemptsInRound: 5, nextAttemptAt: null },
      null,
    ]);
    expect(await row(ids[0]!)).toMatchObject({ status: 'DELIVERED', attempts: 1, last_status_code: 200, last_error: null, finished_at: NOW, lease_token: null, lease_owner: null, lease_expires_at: null });
    expect(await row(ids[1]!)).toMatchObject({ status: 'PENDING', attempts: 1, last_status_code: 503, last_error: 'receiver answered HTTP 503', next_attempt_at: NOW + 30_000, finished_at: null, lease_token: null });
    expect(await row(ids[2]!)).toMatchObject({ status: 'DEAD', attempts: 5, last_status_code: 500, finished_at: NOW, lease_token: null });
    expect(await row(ids[3]!)).toMatchObject({ status: 'PENDING', attempts: 0, lease_token: 'other' });
    const written = await attempts();
    expect(written.map((w) => [w.delivery_id, Number(w.attempt), Number(w.status_code)])).toEqual(
      [
        [ids[0], 1, 200],
        [ids[1], 1, 503],
        [ids[2], 5, 500],
      ].sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
    );
    for (const w of written) expect(w).toMatchObject({ worker: 'worker-a', started_at: NOW - 40, duration_ms: 12 });
  });

  it('writes answers and errors exactly as given, whatever characters they hold', async () => {
    // PostgreSQL takes a group as one array per column: quoting, NULL and empty strings must survive.
    const texts = ['say "hi" \\ {a,b} NULL', '', 'NULL', 'zeilen\nmit ümlaut, 😀 und \t', null];
    const ids = await seedDeliveries(db.store, texts.length, URL_, null, 1000);
    const a = lease('a');
    const claimed = await claimDue(db.store, a, NOW - 100, NOW + 60_000, texts.length);
    const byId = new Map(claimed.map((r) => [r.id, r]));
    const items: AttemptToRecord[] = texts.map((text, i) => ({ row: byId.get(ids[i]!)!, lease: a, outcome: { ...answered(502), error: text, responseBody: text }, now: NOW }));
    expect((await recordAttempts(db.store, items)).every((r) => r?.status === 'PENDING')).toBe(true);
    for (const [i, id] of ids.entries()) expect((await row(id)).last_error).toBe(texts[i]);
    const written = new Map((await attempts()).map((w) => [w.delivery_id, w]));
    expect(ids.map((id) => [written.get(id)?.error, written.get(id)?.response_body])).toEqual(texts.map((t) => [t, t]));
  });

  it('keeps only the live lease when one group holds a row twice (an expired claim and its successor)', async () => {
    const [id] = await seedDeliveries(db.store, 1, URL_, null, 1000);
    const [old] = await claimDue(db.store, lease('old'), NOW - 100, NOW - 50, 1);
    const [current] = await claimDue(db.store, lease('new'), NOW, NOW + 60_000, 1);
    expect(current!.id).toBe(id);
    const results = await recordAttempts(db.store, [
      { row: old!, lease: lease('old'), outcome: answered(200), now: NOW },
      { row: current!, lease: lease('new'), outcome: answered(200), now: NOW },
    ]);
    expect(results).toEqual([null, { status: 'DELIVERED', attempts: 1, attemptsInRound: 1, nextAttemptAt: null }]);
    expect((await attempts()).map((w) => w.worker)).toEqual(['worker-new']);
  });

  it('claims due rows for the freed slots with the results, under the refill lease', async () => {
    const ids = await seedDeliveries(db.store, 6, URL_, null, 1000);
    const a = lease('a');
    const first = await claimDue(db.store, a, NOW - 100, NOW + 60_000, 2);
    const b = lease('b');
    const { results, claimed, claimError } = await recordAndRefill(
      db.store,
      first.map((r) => ({ row: r, lease: a, outcome: answered(200), now: NOW })),
      DEFAULT_RETRY_SCHEDULE,
      { lease: b, now: NOW, leaseUntil: NOW + 60_000, limit: 3 },
    );
    expect(results).toEqual([expect.objectContaining({ status: 'DELIVERED' }), expect.objectContaining({ status: 'DELIVERED' })]);
    expect(claimError).toBeNull();
    expect(claimed).toHaveLength(3);
    const recorded = new Set(first.map((r) => r.id));
    expect(claimed.some((r) => recorded.has(r.id))).toBe(false);
    for (const r of claimed) expect(await row(r.id)).toMatchObject({ status: 'PENDING', lease_token: 'b' });
    expect(ids.filter((id) => !recorded.has(id) && !claimed.some((r) => r.id === id))).toHaveLength(1);
  });
});
