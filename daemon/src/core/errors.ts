/**
 * What category of failure an error is, for the edges that answer a caller: the control API turns
 * it into a tRPC code in one place (control/trpc.ts), HTTP handlers into a status.
 */
export type ErrorCategory = 'invalid' | 'not_found' | 'conflict' | 'forbidden' | 'unavailable' | 'internal';

/** Base of every error Portico raises on purpose: a stable `code`, callers branch on it, and its `category`. */
export class PorticoError extends Error {
  override name = 'PorticoError';
  readonly category: ErrorCategory;
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown; category?: ErrorCategory },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.category = options?.category ?? 'internal';
  }
}

/** Bad command line: printed with the usage and exit status 2. */
export class UsageError extends PorticoError {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super('usage', message, { category: 'invalid' });
  }
}

/** Bad environment variables: every problem at once, one `NAME: what is wrong` line each. */
export class EnvironmentError extends PorticoError {
  override name = 'EnvironmentError';
  constructor(readonly problems: readonly string[]) {
    super('bad_environment', `bad environment:\n  ${problems.join('\n  ')}`, { category: 'invalid' });
  }
}

/** A component could not start; the daemon stops and exits 1. */
export class StartupError extends PorticoError {
  override name = 'StartupError';
  constructor(
    readonly component: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('startup_failed', `${component}: ${message}`, options);
  }
}

/** Turns a listen error into words an operator can act on. */
export function describeListenError(error: unknown, what: string, addr: string, envVar: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') return `cannot listen on ${addr}: address already in use (is another Portico running? set ${envVar} to another address)`;
  if (code === 'EACCES') return `cannot listen on ${addr}: permission denied (ports below 1024 need privileges; set ${envVar})`;
  if (code === 'EADDRNOTAVAIL') return `cannot listen on ${addr}: address not available on this machine (set ${envVar})`;
  if (code === 'ENOTFOUND') return `cannot listen on ${addr}: host name not found (set ${envVar})`;
  return `${what} cannot listen on ${addr}: ${error instanceof Error ? error.message : String(error)}`;
}
