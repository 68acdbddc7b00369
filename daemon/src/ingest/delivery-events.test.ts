import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PublishInput } from '../control/event-bus.js';
import { DeliveryEvents } from './delivery-events.js';
import type { RecordedAttempt } from './outbox.js';

const row = (n: number, url = 'https://hooks.example/in?token=abc') => ({ id: `0190-delivery-${n}`, ingest_job_id: `job-${n}`, callback_url: url });
const delivered = (attempts = 1): RecordedAttempt => ({ status: 'DELIVERED', attempts, attemptsInRound: attempts, nextAttemptAt: null });

function rig() {
  const published: PublishInput[] = [];
  return { published, events: new DeliveryEvents((e) => published.push(e)) };
}

describe('delivery.state events of the callback worker', () => {
  it('a turn with one delivery publishes it as its own event, after the turn', async () => {
    const { published, events } = rig();
    events.recorded(row(1), delivered(2));
    expect(published).toHaveLength(0);
    await nextTurn();
    expect(published).toEqual([
      {
        type: 'delivery.state',
        level: 'info',
        message: 'delivery 0190-delivery-1 of job job-1 DELIVERED (attempt 2)',
        details: { delivery: '0190-delivery-1', job: 'job-1', attempt: 2, status: 'DELIVERED', target: 'https://hooks.example/in?token=***' },
      },
    ]);
  });

  it('deliveries recorded in one turn share one event naming how many, the first and the last', async () => {
    const { published, events } = rig();
    for (let n = 1; n <= 12; n++) events.recorded(row(n), delivered());
    await nextTurn();
    expect(published).toHaveLength(1);
    expect(published[0]!.message).toBe('12 deliveries DELIVERED to https://hooks.example/in?token=***: 0190-delivery-1 of job job-1 … 0190-delivery-12 of job job-12');
    expect(published[0]!.details).toEqual({ status: 'DELIVERED', deliveries: 12, first: '0190-delivery-1', last: '0190-delivery-12', targets: 1, target: 'https://hooks.example/in?token=***' });
    // The next turn starts a new event.
    events.recorded(row(13), delivered());
    events.recorded(row(14, 'https://other.example/hook'), delivered());
    await nextTurn();
    expect(published).toHaveLength(2);
    expect(published[1]!.message).toBe('2 deliveries DELIVERED to 2 targets: 0190-delivery-13 of job job-13 … 0190-delivery-14 of job job-14');
    expect(published[1]!.details).not.toHaveProperty('target');
  });

  it('a failed attempt is an event of its own at once; a DEAD one is a warning', async () => {
    const { published, events } = rig();
    events.recorded(row(1), delivered());
    events.recorded(row(2), { status: 'PENDING', attempts: 1, attemptsInRound: 1, nextAttemptAt: 1 });
    events.recorded(row(3), { status: 'DEAD', attempts: 5, attemptsInRound: 5, nextAttemptAt: null });
    expect(published.map((e) => [e.level, e.message])).toEqual([
      ['info', 'delivery 0190-delivery-2 of job job-2 PENDING (attempt 1)'],
      ['warn', 'delivery 0190-delivery-3 of job job-3 DEAD (attempt 5)'],
    ]);
    expect(published[1]!.details).toMatchObject({ delivery: '0190-delivery-3', status: 'DEAD', attempt: 5 });
    await nextTurn();
    expect(published.map((e) => e.message)).toContain('delivery 0190-delivery-1 of job job-1 DELIVERED (attempt 1)');
  });

  it('flush publishes what the turn holds now, once', async () => {
    const { published, events } = rig();
    events.recorded(row(1), delivered());
    events.flush();
    expect(published).toHaveLength(1);
    await nextTurn();
    expect(published).toHaveLength(1);
  });
});
