import type { SystemStatus } from '@portico/daemon/control';
import { createControlClient } from './control/control-client.js';
import { toControlProblem, type ControlProblem } from './control/control-problem.js';
import type { ControlSource } from './control/control-source.js';
import { ControlUrlError } from './control/endpoints.js';
import { formatStatusText } from './format/status-text.js';

export interface RunTuiOptions {
  /** Control address, e.g. `http://127.0.0.1:9901`. */
  url: string;
  token: string;
  /** Print `system.status` as JSON once and exit. */
  json?: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** Where problems are reported; defaults to process.stderr. */
  stderr?: NodeJS.WriteStream;
  /** Defaults to process.env; read for NO_COLOR. */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the daemon's first answer. */
  connectTimeoutMs?: number;
}

/**
 * `portico tui`: reads the status once (refusing early on a wrong token or an unreachable
 * daemon), then prints it (not a TTY, or --json) or opens the live console. Returns the exit code.
 */
export async function runTui(opts: RunTuiOptions): Promise<number> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const env = opts.env ?? process.env;
  const fail = (message: string): number => {
    stderr.write(`portico tui: ${message}\n`);
    return 1;
  };

  if (!opts.token.trim()) return fail('no control token; pass --token-file FILE or set PORTICO_CONTROL_TOKEN (the daemon writes its token to <data dir>/control.token).');
  let source: ControlSource;
  try {
    source = createControlClient({ url: opts.url, token: opts.token.trim() });
  } catch (error) {
    if (error instanceof ControlUrlError) return fail(error.message);
    throw error;
  }

  let status: SystemStatus;
  try {
    status = await source.fetchStatus(AbortSignal.timeout(opts.connectTimeoutMs ?? 5_000));
  } catch (error) {
    await source.close();
    return fail(describeStartupProblem(toControlProblem(error), source.endpoints.display));
  }

  if (opts.json) {
    stdout.write(`${JSON.stringify(status, null, 2)}\n`);
    await source.close();
    return 0;
  }
  // Piped either way (`portico tui | less`, `portico tui > file`, cron): print once.
  if (!stdin.isTTY || !stdout.isTTY) {
    stdout.write(formatStatusText(status, { url: source.endpoints.display, nowMs: Date.now() }));
    await source.close();
    return 0;
  }

  try {
    const { runInteractive } = await importInteractive();
    return await runInteractive({ source, status, stdin, stdout, stderr, color: !env['NO_COLOR'] });
  } finally {
    await source.close();
  }
}

export function describeStartupProblem(problem: ControlProblem, url: string): string {
  switch (problem.code) {
    case 'unauthorized':
      return `the daemon at ${url} refused the control token (${problem.reason}). Use the daemon's token: --token-file <data dir>/control.token or PORTICO_CONTROL_TOKEN.`;
    case 'unreachable':
      return `cannot reach the Portico daemon at ${url} (${problem.reason}). Is it running? Start it with \`portico daemon\`, or point --url / PORTICO_CONTROL_ADDR at it.`;
    case 'timeout':
      return `the Portico daemon at ${url} did not answer in time (${problem.reason}). Check the address and that the daemon is healthy.`;
    case 'failed':
      return `the control API at ${url} failed: ${problem.reason}. Is ${url} a Portico control address?`;
  }
}

/**
 * Ink decides once, when it is first loaded, whether it runs in CI (a `CI` variable) and then
 * prints only the final frame. An operator's terminal is never CI, so load it without those.
 */
async function importInteractive(): Promise<typeof import('./shell/interactive.js')> {
  const saved = { CI: process.env['CI'], CONTINUOUS_INTEGRATION: process.env['CONTINUOUS_INTEGRATION'] };
  delete process.env['CI'];
  delete process.env['CONTINUOUS_INTEGRATION'];
  try {
    return await import('./shell/interactive.js');
  } finally {
    for (const [name, value] of Object.entries(saved)) if (value !== undefined) process.env[name] = value;
  }
}
