/**
 * Log lines for stdout, written together: the lines of FLUSH_MS (many requests or deliveries
 * under load) go out in one write instead of one system call each. Pending lines are written
 * FLUSH_MS after the first of them, as soon as they pass FLUSH_BYTES, when the process exits,
 * and on `flushStdout()` (the daemon's logger calls it after an error line). The daemon's
 * logger and the gateway's log sink both write here, so their lines keep their order.
 */
import type { LogSink } from './logger.js';

/** How long a line may wait for others; short enough that a reader following the log sees no delay. */
const FLUSH_MS = 20;
/** Past this many pending characters the lines are written at once (bounds the memory held). */
const FLUSH_BYTES = 64 * 1024;

let pending = '';
let timer: NodeJS.Timeout | null = null;
let hooked = false;

/** Writes the pending lines now. */
export function flushStdout(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  if (pending === '') return;
  const out = pending;
  pending = '';
  process.stdout.write(out);
}

/** Queues `line` (without its newline) for stdout. */
export function batchedStdout(line: string): void {
  pending += `${line}\n`;
  if (pending.length >= FLUSH_BYTES) {
    flushStdout();
    return;
  }
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
