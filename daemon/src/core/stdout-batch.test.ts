import { afterEach, expect, it, vi } from 'vitest';
import { Logger } from './logger.js';
import { batchedStdout, batchedStdoutSink } from './stdout-batch.js';

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

it('lets the daemon logger batch its lines, in order with the gateway lines, and writes an error at once', async () => {
  const writes: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  });
  const logger = new Logger({ sink: batchedStdoutSink, base: { component: 'callback-worker' } });
  logger.info('callback_delivered', { delivery: 'd1' });
  batchedStdout('gateway access line');
  logger.info('callback_delivered', { delivery: 'd2' });
  expect(writes).toEqual([]);
  logger.error('worker failed', { delivery: 'd3' });
  expect(writes).toHaveLength(1);
  const lines = writes[0]!.trimEnd().split('\n');
  expect(lines.map((l) => l.replace(/^\d{4}-\S+ /, ''))).toEqual([
    'INFO  [callback-worker] callback_delivered delivery=d1',
    'gateway access line',
    'INFO  [callback-worker] callback_delivered delivery=d2',
    'ERROR [callback-worker] worker failed delivery=d3',
  ]);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(writes).toHaveLength(1);
});

it('keeps lines with characters outside ASCII whole, and fills its buffer with them exactly', async () => {
  const writes: Buffer[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(Buffer.from(chunk));
    return true;
  });
  // 1,023 bytes and a newline: 64 of them fill 64 KiB exactly, though their worst case would not fit.
  const line = `${'é'.repeat(300)}😀${'x'.repeat(419)}`;
  expect(Buffer.byteLength(line)).toBe(1023);
  for (let i = 0; i < 65; i++) batchedStdout(line);
  expect(writes.map((w) => w.length)).toEqual([64 * 1024]);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(Buffer.concat(writes).toString('utf8')).toBe(`${line}\n`.repeat(65));
});

it('writes a line longer than its buffer on its own, after the lines queued before it', () => {
  const writes: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(String(chunk));
    return true;
  });
  batchedStdout('before');
  const long = 'y'.repeat(100 * 1024);
  batchedStdout(long);
  expect(writes).toEqual(['before\n', `${long}\n`]);
});
