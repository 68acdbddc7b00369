import { afterEach, expect, it, vi } from 'vitest';
import { atomicStdoutWrites, batchedStdout, flushStdout } from './stdout-batch.js';

// A serving process shares its stdout with the daemon and the other serving processes: each
// write must be whole lines of at most 4096 bytes (PIPE_BUF), so lines never interleave.
afterEach(() => {
  flushStdout();
  // Unit test files share their modules: the next file gets the ordinary writes back.
  atomicStdoutWrites(false);
  vi.restoreAllMocks();
});

it('writes whole lines in pieces of at most 4096 bytes, in order; a longer line goes alone', () => {
  const writes: Buffer[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    writes.push(Buffer.from(chunk));
    return true;
  });
  atomicStdoutWrites();
  const lines = Array.from({ length: 300 }, (_, i) => `line ${i} ${'é'.repeat(i % 97)}`);
  lines.splice(150, 0, 'L'.repeat(5000));
  for (const line of lines) batchedStdout(line);
  flushStdout();
  expect(writes.length).toBeGreaterThan(5);
  for (const write of writes) {
    expect(write.at(-1)).toBe(0x0a);
    if (write.length > 4096) expect(write.toString()).toBe(`${'L'.repeat(5000)}\n`);
  }
  expect(Buffer.concat(writes).toString()).toBe(lines.map((l) => `${l}\n`).join(''));
});

it('holds the next pieces while one waits in the event loop, so no system call carries two', () => {
  const writes: string[] = [];
  let later: (() => void) | null = null;
  let queuedBytes = 0;
  vi.spyOn(process.stdout, 'writableLength', 'get').mockImplementation(() => queuedBytes);
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: Uint8Array, done?: () => void) => {
    writes.push(Buffer.from(chunk).toString());
    // The first piece finds the pipe full: Node keeps it for later.
    if (writes.length === 1) {
      queuedBytes = chunk.length;
      later = () => {
        queuedBytes = 0;
        done?.();
      };
    } else queueMicrotask(() => done?.());
    return true;
  }) as typeof process.stdout.write);
  atomicStdoutWrites();
  const line = 'y'.repeat(1500);
  for (let i = 0; i < 8; i++) batchedStdout(`${i} ${line}`);
  flushStdout();
  expect(writes).toHaveLength(1);
  later!();
  expect(writes.length).toBeGreaterThan(2);
  expect(writes.join('')).toBe(Array.from({ length: 8 }, (_, i) => `${i} ${line}\n`).join(''));
});
