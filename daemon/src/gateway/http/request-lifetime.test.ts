import { expect, it } from 'vitest';
import { RequestLifetime } from './request-lifetime.js';

it('tells each listener once, with the first reason; a signal follows whether made before or after', () => {
  const lifetime = new RequestLifetime();
  const before = lifetime.signal;
  const heard: string[] = [];
  const first = (reason: Error): void => void heard.push(`first: ${reason.message}`);
  const second = (reason: Error): void => void heard.push(`second: ${reason.message}`);
  const gone = (reason: Error): void => void heard.push(`gone: ${reason.message}`);
  lifetime.listen(first);
  lifetime.listen(gone);
  lifetime.listen(second);
  lifetime.unlisten(gone);
  expect(before.aborted).toBe(false);

  lifetime.cancel(new Error('client closed the connection'));
  lifetime.cancel(new Error('shutdown timeout reached'));
  expect(heard).toEqual(['first: client closed the connection', 'second: client closed the connection']);
  expect(before.aborted).toBe(true);
  expect((before.reason as Error).message).toBe('client closed the connection');
  expect(lifetime.reason?.message).toBe('client closed the connection');

  // Made after the cancellation: aborted already; a late listener is told at once.
  const after = new RequestLifetime();
  after.cancel(new Error('body timeout'));
  expect(after.signal.aborted).toBe(true);
  after.listen(first);
  expect(heard.at(-1)).toBe('first: body timeout');
});
