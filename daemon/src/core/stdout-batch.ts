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
/** Atomic mode (`atomicStdoutWrites`): lines go out in pieces of whole lines, at most PIPE_BUF bytes each. */
let atomic = false;
/** Atomic mode: pieces waiting until stdout has taken the one before (never two in one write). */
const held: Buffer[] = [];
let waiting = false;

/** POSIX's smallest PIPE_BUF, Linux's: a pipe takes a write of up to this many bytes in one piece. */
const PIPE_BUF = 4096;

/**
 * For a process that shares its stdout with others (the gateway's serving processes and the
 * daemon): each system call writes whole lines and at most PIPE_BUF bytes, which a pipe takes in
 * one piece, so lines of different processes never interleave mid-line (a line longer than
 * that still goes out alone, and could). A pipe is made blocking, as a file is written: Node
 * would otherwise queue what a full pipe did not take and later write the queue with one
 * `writev`, which the pipe may split anywhere. A piece that still went to the event loop (the
 * pipe was non-blocking for a moment: each process that opens it makes it so) holds the next
 * ones back until it is written. Files take each write whole already, and sockets in practice.
 */
export function atomicStdoutWrites(on = true): void {
  atomic = on;
  if (!on) return;
  const handle = (process.stdout as unknown as { _handle?: { setBlocking?: (blocking: boolean) => number } })._handle;
  handle?.setBlocking?.(true);
}

/** Queues `out` in line-aligned pieces of at most PIPE_BUF bytes (a longer line alone) and writes what it can. */
function writeAtomic(out: Buffer): void {
  let start = 0;
  while (out.length - start > PIPE_BUF) {
    const cut = out.lastIndexOf(NEWLINE, start + PIPE_BUF - 1);
    // A line longer than the limit: up to its own end.
    const end = cut >= start ? cut + 1 : out.indexOf(NEWLINE, start + PIPE_BUF) + 1 || out.length;
    held.push(out.subarray(start, end));
    start = end;
  }
  if (start < out.length) held.push(start === 0 ? out : out.subarray(start));
  pump();
}

function pump(): void {
  while (!waiting && held.length > 0) {
    let queued = false;
    process.stdout.write(held.shift()!, () => {
      if (!queued) return;
      waiting = false;
      pump();
    });
    if (process.stdout.writableLength > 0) {
      queued = true;
      waiting = true;
    }
  }
}

/** Writes the pending lines now. */
export function flushStdout(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  if (pending === null || used === 0) return;
  const written = pending;
  const out = written.subarray(0, used);
  pending = null;
  used = 0;
  if (atomic) writeAtomic(out);
  else process.stdout.write(out);
  // stdout to a file, a pipe or a terminal is written before write() returns; a stream that kept the bytes to write later keeps its buffer too.
  if (process.stdout.writableLength === 0 && held.length === 0) spare = written;
}

/** Queues `line` (without its newline) for stdout. */
export function batchedStdout(line: string): void {
  // The exact size is counted only when the worst case might not fit.
  const size = used + line.length * MAX_BYTES_PER_UNIT + 1 <= FLUSH_BYTES ? 0 : Buffer.byteLength(line) + 1;
  if (pending !== null && used + size > FLUSH_BYTES) flushStdout();
  if (size > FLUSH_BYTES) {
    // A line longer than the whole buffer goes out on its own, after the lines before it.
    if (atomic) writeAtomic(Buffer.from(`${line}\n`));
    else process.stdout.write(`${line}\n`);
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
    process.once('exit', () => {
      flushStdout();
      // Atomic mode: what waited for a queued piece goes out as it can (nothing runs after exit).
      for (const piece of held.splice(0)) process.stdout.write(piece);
    });
  }
}

/** A logger sink for the daemon: batched lines, flushed at once after an error. */
export const batchedStdoutSink: LogSink = { write: batchedStdout, flush: flushStdout };
