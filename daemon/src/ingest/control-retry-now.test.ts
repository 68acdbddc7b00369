import { describe, expect, it } from 'vitest';
import { testDatabases } from '../store/testing/databases.js';
import type { OutboxRow } from './records.js';
import { callbackRigPerTest, T0 } from './testing/callback-rig.js';
import { seedFinishedJob } from './testing/ingest-fixture.js';

const factories = await testDatabases();

describe.each(factories.map((f) => [f.kind, f] as const))('deliveries.retryNow on %s', (_kind, factory) => {
  const rig = callbackRigPerTest(factory, { worker: true });

  const row = async (id: string) => (await rig.store.get<OutboxRow>('SELECT * FROM ingest_callback_outbox WHERE id = ?', [id]))!;

  /** A delivery whose first attempt failed: PENDING, next attempt 30 s later. */
  async function failedOnce(): Promise<string> {
    const { deliveryId } = await seedFinishedJob(rig.store, { url: rig.receiver.url }, 'SUCCEEDED', T0);
    rig.receiver.reply = (_req, i) => (i === 0 ? { status: 503 } : { status: 204 });
    expect(await rig.worker.runOnce()).toBe(1);
    expect(await row(deliveryId!)).toMatchObject({ status: 'PENDING', attempts: 1, next_attempt_at: T0 + 30_000 });
    return deliveryId!;
  }

  it('makes a PENDING delivery due now, audited like a reset, so the next poll attempts it', async () => {
    const id = await failedOnce();
    rig.now = T0 + 5_000;
    expect(await rig.worker.runOnce(), 'not due yet').toBe(0);
    const result = await rig.control.deliveries.retryNow({ id, actor: 'ops@host (cli)' });
    expect(result).toMatchObject({ id, next_attempt_at: new Date(T0 + 5_000).toISOString() });
    expect(await row(id)).toMatchObject({ status: 'PENDING', attempts: 1, next_attempt_at: T0 + 5_000 });
    expect(await rig.store.all('SELECT id, action, actor, at, count, selector FROM ingest_delivery_resets')).toEqual([
      { id: result.resetId, action: 'retry', actor: 'ops@host (cli)', at: T0 + 5_000, count: 1, selector: JSON.stringify({ ids: 1 }) },
    ]);
    expect(await rig.store.all('SELECT reset_id, delivery_id, attempts_before FROM ingest_delivery_reset_rows')).toEqual([{ reset_id: result.resetId, delivery_id: id, attempts_before: 1 }]);
    const event = rig.events.since('test:0').find((e) => e.message.startsWith('retry now'))!;
    expect(event.message).toBe(`retry now: delivery ${id} of job ${(await row(id)).ingest_job_id} is due now (by ops@host (cli))`);
    expect(event.details).toMatchObject({ delivery: id, action: 'retry', actor: 'ops@host (cli)' });

    expect(await rig.worker.runOnce()).toBe(1);
    const detail = await rig.control.deliveries.get({ id });
    expect(detail).toMatchObject({ status: 'DELIVERED', attempts: 2 });
    expect(detail.attempt_log.map((e) => (e.kind === 'attempt' ? `#${e.attempt}` : `${e.kind} by ${e.actor}`))).toEqual(['#1', 'retry by ops@host (cli)', '#2']);
  });

  it('refuses a DEAD, a DELIVERED and an unknown delivery, and one whose attempt is under way, saying why', async () => {
    const id = await failedOnce();
    await rig.store.run(`UPDATE ingest_callback_outbox SET status = 'DEAD' WHERE id = ?`, [id]);
    await expect(rig.control.deliveries.retryNow({ id, actor: 'a' })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: `delivery ${id.slice(0, 8)} is DEAD, not PENDING: reset it to PENDING instead (portico deliveries reset --id ${id})`,
    });
    await rig.store.run(`UPDATE ingest_callback_outbox SET status = 'DELIVERED' WHERE id = ?`, [id]);
    await expect(rig.control.deliveries.retryNow({ id, actor: 'a' })).rejects.toMatchObject({ code: 'CONFLICT', message: `delivery ${id.slice(0, 8)} is DELIVERED: only a PENDING delivery can be retried now` });
    await rig.store.run(`UPDATE ingest_callback_outbox SET status = 'PENDING', lease_owner = 'host:42:abc', lease_token = 't', lease_expires_at = ? WHERE id = ?`, [rig.now + 10_000, id]);
    await expect(rig.control.deliveries.retryNow({ id, actor: 'a' })).rejects.toMatchObject({ code: 'CONFLICT', message: `delivery ${id.slice(0, 8)} is being attempted right now (by host:42:abc); its outcome sets the next attempt` });
    await expect(rig.control.deliveries.retryNow({ id: '00000000-0000-4000-8000-000000000000', actor: 'a' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(rig.control.deliveries.retryNow({ id: 'not-a-uuid', actor: 'a' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(await row(id)).toMatchObject({ next_attempt_at: T0 + 30_000 });
    expect(await rig.store.all('SELECT id FROM ingest_delivery_resets')).toEqual([]);
  });
});
