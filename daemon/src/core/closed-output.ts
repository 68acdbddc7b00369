/**
 * Standard output and error whose reader went away (`portico daemon | head`, a log shipper
 * restarting, `| tee` ended by the same Ctrl-C): Node emits EPIPE as an 'error' event, which
 * with no listener ends the process at once — no clean stop, in-flight requests cut. Here such
 * a stream is written off instead: what is written to it later is dropped, and the process goes
 * on (a daemon that was stopping finishes its stop).
 */
const guarded = new WeakSet<NodeJS.WritableStream>();
const GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET']);

export function tolerateClosedOutput(streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    let noted = false;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      // Anything else on an output stream stays as fatal as it was.
      if (!GONE.has(error.code ?? '')) throw error;
      if (noted || stream !== process.stdout) return;
      noted = true;
      process.stderr.write(`portico: standard output was closed (${error.code}); log lines written there are dropped from now on\n`);
    });
  }
}
