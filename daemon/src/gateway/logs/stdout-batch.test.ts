import { afterEach, expect, it, vi } from 'vitest';
import { batchedStdout } from './stdout-batch.js';

afterEach(() => {
  vi.restoreAllMocks();
});

it('writes the lines of a burst to stdout together, in order, soon after the first', async () => {
  const writes: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  });
  for (let i = 0; i < 100; i++) batchedStdout(`line ${i}`);
  expect(writes).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(writes).toEqual([Array.from({ length: 100 }, (_, i) => `line ${i}\n`).join('')]);
});

it('does not hold more than 64 KiB: a long burst goes out as it grows', async () => {
  const writes: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  });
  const line = 'x'.repeat(1023);
  for (let i = 0; i < 200; i++) batchedStdout(line);
  expect(writes.length).toBeGreaterThanOrEqual(3);
  expect(writes.every((w) => w.length >= 64 * 1024 && w.length < 66 * 1024)).toBe(true);
  // The rest follows with the timer.
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(writes.join('')).toBe(`${line}\n`.repeat(200));
});
