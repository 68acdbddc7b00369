import { describe, expect, it } from 'vitest';
import { attemptText, confirmText, deliveryIdFromPath, deliveryPath, deliveryWhen, filterFromUrl, listInput, pruneSelected, resetPlan, retriedText, retryConfirmText, toggleSelected } from './delivery-logic';

const JOB = '0b7e2a4c-1111-4222-8333-444455556666';
// Delivery ids are UUIDv7: two made in the same minute share their first 8 characters.
const DELIVERY_A = '01a20f22-b3c5-7422-883d-8c0e9038fb86';
const DELIVERY_B = '01a20f22-b355-7e67-8945-5e3d789ac373';

describe('deliveries view logic', () => {
  it('turns the filter into the list input and reports a job id that is not a UUID', () => {
    expect(listInput({ status: 'DEAD', jobId: '', url: ' hooks ' }, 50, 0)).toEqual({ input: { status: 'DEAD', url: 'hooks', limit: 50, offset: 0 }, problem: null });
    expect(listInput({ status: '', jobId: 'abc', url: '' }, 50, 100)).toEqual({ input: { limit: 50, offset: 100 }, problem: 'Job must be a full job id (a UUID).' });
  });

  it('plans a reset of one, the selected, or everything matching, and never an empty selector', () => {
    expect(resetPlan({ kind: 'one', id: JOB })).toEqual({ selector: { ids: [JOB] }, what: 'delivery 0b7e2a4c' });
    expect(resetPlan({ kind: 'selected', ids: ['a', 'b'] })).toEqual({ selector: { ids: ['a', 'b'] }, what: '2 selected' });
    expect(resetPlan({ kind: 'matching', filter: { status: 'DEAD', jobId: '', url: '' } })).toEqual({ selector: { all: true }, what: 'all matching: every job and URL' });
    expect(resetPlan({ kind: 'matching', filter: { status: '', jobId: JOB, url: 'x.example' } }).selector).toEqual({ jobId: JOB, url: 'x.example' });
  });

  it('states the count in the question', () => {
    expect(confirmText(3, '2 selected')).toBe("Reset 3 DEAD deliveries (2 selected) to PENDING? They are retried at the worker's next poll.");
    expect(confirmText(1, 'x')).toMatch(/^Reset 1 DEAD delivery /);
    expect(confirmText(0, 'x')).toBe('No DEAD deliveries to reset (x).');
  });

  it('selects only DEAD rows and forgets rows that stopped being DEAD', () => {
    let s = toggleSelected(new Set(), { id: 'a', status: 'DEAD' });
    s = toggleSelected(s, { id: 'b', status: 'PENDING' });
    expect([...s]).toEqual(['a']);
    expect([...toggleSelected(s, { id: 'a', status: 'DEAD' })]).toEqual([]);
    expect([...pruneSelected(new Set(['a', 'c']), [{ id: 'a', status: 'PENDING' }, { id: 'c', status: 'DEAD' }])]).toEqual(['c']);
  });

  it('describes attempts', () => {
    expect(attemptText({ attempt: 1, worker: 'w', started_at: '', duration_ms: 5, status_code: 503, error: 'receiver answered HTTP 503', response_body: 'busy' })).toEqual({ outcome: 'HTTP 503', detail: 'receiver answered HTTP 503 · answer: busy' });
    expect(attemptText({ attempt: 2, worker: 'w', started_at: '', duration_ms: 5, status_code: null, error: 'timeout: no answer within 10000 ms', response_body: null }).outcome).toBe('no answer');
  });

  it('names a delivery in the address the Jobs view links to, and reads only a delivery id back', () => {
    expect(deliveryPath(JOB, 'job-1')).toBe(`/deliveries?job=job-1&delivery=${JOB}`);
    expect(filterFromUrl({ status: 'DEAD', job: 'j', url: 'hooks', delivery: '' })).toEqual({ status: 'DEAD', jobId: 'j', url: 'hooks' });
    expect(filterFromUrl({ status: 'LOST', job: '', url: '', delivery: '' }).status).toBe('');
    expect(deliveryIdFromPath(`/deliveries/${JOB}`)).toBe(JOB);
    expect(deliveryIdFromPath(`/deliveries/${JOB.toUpperCase()}/`)).toBe(JOB);
    expect(deliveryIdFromPath('/deliveries')).toBeNull();
    expect(deliveryIdFromPath('/deliveries/abc')).toBeNull();
    expect(deliveryIdFromPath(`/jobs/${JOB}`)).toBeNull();
  });

  it('asks before a retry now', () => {
    expect(retryConfirmText(JOB)).toBe('Retry delivery 0b7e2a4c now? A callback worker attempts it at its next poll instead of at its scheduled time.');
  });

  it('names a delivery by the random end of its UUIDv7, so two of the same minute read apart', () => {
    expect(resetPlan({ kind: 'one', id: DELIVERY_A }).what).toBe('delivery 9038fb86');
    expect(resetPlan({ kind: 'one', id: DELIVERY_B }).what).toBe('delivery 789ac373');
    expect(retryConfirmText(DELIVERY_A)).toMatch(/^Retry delivery 9038fb86 now\? /);
    expect(retriedText(DELIVERY_B)).toBe('Delivery 789ac373 is due now; a callback worker attempts it at its next poll.');
    expect(resetPlan({ kind: 'matching', filter: { status: '', jobId: JOB, url: '' } }).what).toBe('all matching: job 0b7e2a4c');
  });

  it('says when a delivery is next tried, or when and how it ended', () => {
    const at = '2026-01-02T10:00:00.000Z';
    const end = '2026-01-02T10:05:00.000Z';
    expect(deliveryWhen({ status: 'PENDING', next_attempt_at: at, finished_at: null })).toEqual({ word: 'next attempt', at });
    expect(deliveryWhen({ status: 'DEAD', next_attempt_at: at, finished_at: end })).toEqual({ word: 'gave up', at: end });
    expect(deliveryWhen({ status: 'DELIVERED', next_attempt_at: at, finished_at: end })).toEqual({ word: 'delivered', at: end });
    expect(deliveryWhen({ status: 'DEAD', next_attempt_at: at, finished_at: null })).toBeNull();
  });
});
