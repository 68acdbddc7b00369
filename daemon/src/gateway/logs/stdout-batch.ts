/**
 * Log lines for stdout, written together: the lines of FLUSH_MS (many requests under load)
 * go out in one write instead of one system call each. Pending lines are written FLUSH_MS
 * after the first of them, as soon as they pass FLUSH_BYTES, and when the process exits.
 */

/** How long a line may wait for others; short enough that a reader following the log sees no delay. */
const FLUSH_MS = 20;
/** Past this many pending characters the lines are written at once (bounds the memory held). */
const FLUSH_BYTES = 64 * 1024;

let pending = '';
let timer: NodeJS.Timeout | null = null;
let hooked = false;

function flush(): void {
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
    flush();
    return;
  }
  if (timer) return;
  // Unreferenced: pending lines never keep the process alive; the exit hook writes them.
  timer = setTimeout(flush, FLUSH_MS).unref();
  if (!hooked) {
    hooked = true;
    // stdout to a file or a pipe is written synchronously, so lines queued before exit still go out.
    process.once('exit', flush);
  }
}
