/**
 * Log lines for stdout, written together: the lines of FLUSH_MS (many requests or deliveries
 * under load) go out in one write instead of one system call each. Pending lines are written
 * FLUSH_MS after the first of them, as soon as they fill FLUSH_BYTES, when the process exits,
 * and on `flushStdout()` (the daemon's logger calls it after an error line). The daemon's
 * logger and the gateway's log sink both write here, so their lines keep their order.
 *
 * Each line is encoded into the pending buffer as it comes, while its string is still in the
 * cache: appending to one string instead made a rope of every piece of every line, and
 * flattening and encoding it at flush time cost a proxied request about 1.7 µs (profiled).
 */
import type { LogSink } from './logger.js';

/** How long a line may wait for others; short enough that a reader following the log sees no delay. */
const FLUSH_MS = 20;
/** The pending lines' buffer: past this many bytes they are written at once (bounds the memory held). */
const FLUSH_BYTES = 64 * 1024;
/** UTF-8 takes at most 3 bytes for each UTF-16 code unit (a surrogate pair: 4 bytes for 2 units). */
const MAX_BYTES_PER_UNIT = 3;
const NEWLINE = 0x0a;

/** Buffer's own UTF-8 encoder: `write(string, offset)` spends more on sorting out its arguments than on the bytes. */
interface Utf8Writable {
  utf8Write(text: string, offset: number, length: number): number;
}

let pending: (Buffer & Utf8Writable) | null = null;
let used = 0;
/** A buffer the last write is done with, for the next lines. */
let spare: (Buffer & Utf8Writable) | null = null;
let timer: NodeJS.Timeout | null = null;
let hooked = false;

/** Writes the pending lines now. */
export function flushStdout(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  if (pending === null || used === 0) return;
  const written = pending;
  const out = written.subarray(0, used);
  pending = null;
  used = 0;
  process.stdout.write(out);
  // stdout to a file, a pipe or a terminal is written before write() returns; a stream that kept the bytes to write later keeps its buffer too.
  if (process.stdout.writableLength === 0) spare = written;
}

/** Queues `line` (without its newline) for stdout. */
export function batchedStdout(line: string): void {
  // The exact size is counted only when the worst case might not fit.
  const size = used + line.length * MAX_BYTES_PER_UNIT + 1 <= FLUSH_BYTES ? 0 : Buffer.byteLength(line) + 1;
  if (pending !== null && used + size > FLUSH_BYTES) flushStdout();
  if (size > FLUSH_BYTES) {
    // A line longer than the whole buffer goes out on its own, after the lines before it.
    process.stdout.write(`${line}\n`);
    return;
  }
  if (pending === null) {
    pending = spare ?? (Buffer.allocUnsafe(FLUSH_BYTES) as Buffer & Utf8Writable);
    spare = null;
  }
  used += pending.utf8Write(line, used, FLUSH_BYTES - used);
  pending[used++] = NEWLINE;
  if (timer) return;
  // Unreferenced: pending lines never keep the process alive; the exit hook writes them.
  timer = setTimeout(flushStdout, FLUSH_MS).unref();
  if (!hooked) {
    hooked = true;
    // stdout to a file or a pipe is written synchronously, so lines queued before exit still go out.
    process.once('exit', flushStdout);
  }
}

/** A logger sink for the daemon: batched lines, flushed at once after an error. */
export const batchedStdoutSink: LogSink = { write: batchedStdout, flush: flushStdout };
