import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PostgresStore, quoteIdent } from '../daemon/src/store/postgres-store.js';
import { SqliteStore } from '../daemon/src/store/sqlite-store.js';
import { TEST_POSTGRES_URL } from '../daemon/src/store/testing/databases.js';
import type { Store } from '../daemon/src/store/types.js';
import { DAEMON_NODE_FLAGS } from '../scripts/daemon-node-flags.mjs';
import { freePort } from '../daemon/src/core/testing/free-port.js';

export { freePort };

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const PORTICO_BIN = join(REPO_ROOT, 'daemon', 'bin', 'portico.js');
export const ARTIFACTS_DIR = join(REPO_ROOT, 'e2e', 'artifacts');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `portico ARGS` to completion. */
export async function runPortico(args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  const child = spawn(process.execPath, [PORTICO_BIN, ...args], {
    cwd: opts.cwd ?? REPO_ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export interface DaemonOptions {
  /** Extra environment; the harness sets PORTICO_DATA_DIR and the PORTICO_*_ADDR listen addresses to free ports. */
  env?: Record<string, string>;
  /** Extra arguments after `portico daemon`. */
  args?: string[];
  /** Reuse a data dir (a restart keeps its token and database). */
  dataDir?: string;
  /** Don't wait for readiness (for tests of failing starts). */
  noWait?: boolean;
  /** stdout is a pipe read slowly (paused most of the time), as by a log reader that falls behind: the pipe fills and writes block. */
  slowStdout?: boolean;
}

export interface DaemonHandle {
  controlUrl: string;
  controlPort: number;
  /** Internal services listener (infosessions, ingest API, discovery HTTP form). */
  servicesUrl: string;
  /** The gateway of config/portico.hcl (its port comes from PORTICO_GATEWAY_PORT, set to a free port). */
  gatewayUrl: string;
  gatewayPort: number;
  /** Discovery gRPC, host:port. */
  cdsAddress: string;
  dataDir: string;
  /** The control token, read from <dataDir>/control.token once the daemon made it. */
  token: string;
  pid(): number | undefined;
  /** stdout + stderr so far. */
  logs(): string;
  /** Sends `signal` and waits for the exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  /** Starts the daemon again on the same port and data dir. */
  start(): Promise<void>;
  /** Stops it if running and deletes the data dir. */
  dispose(): Promise<void>;
  /** Resolves when the exit happens (for failing starts). */
  exited(): Promise<number | null>;
  /** Closes the reading end of the daemon's stdout, as a log reader that went away does (stderr is still read). */
  closeStdout(): void;
}

/** Starts `portico daemon` as a child process on free ports with its own data dir. */
export async function startDaemon(opts: DaemonOptions = {}): Promise<DaemonHandle> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'portico-e2e-'));
  const controlPort = await freePort();
  const controlUrl = `http://127.0.0.1:${controlPort}`;
  const servicesPort = await freePort();
  const cdsPort = await freePort();
  const gatewayPort = await freePort();
  let child: ChildProcess | null = null;
  let output = '';
  let exit: Promise<number | null> = Promise.resolve(null);

  const launch = async (): Promise<void> => {
    output = '';
    // With the Node flags `npm start` and the service file give it: the tests run the daemon as it runs.
    const command = [process.execPath, ...DAEMON_NODE_FLAGS, PORTICO_BIN, 'daemon', ...(opts.args ?? [])];
    // A child's stdout from spawn is a socket pair; a shell pipeline or a service manager may give a
    // pipe, whose writes are whole only up to 4096 bytes. Through `cat`, the daemon (still this pid) writes into a pipe.
    const [file, args] = opts.slowStdout ? ['bash', ['-c', 'exec "$0" "$@" > >(exec cat)', ...command]] : [command[0]!, command.slice(1)];
    const proc = spawn(file, args, {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PORTICO_DATA_DIR: dataDir,
        PORTICO_CONTROL_ADDR: `127.0.0.1:${controlPort}`,
        PORTICO_SERVICES_ADDR: `127.0.0.1:${servicesPort}`,
        PORTICO_CDS_ADDR: `127.0.0.1:${cdsPort}`,
        PORTICO_GATEWAY_PORT: String(gatewayPort),
        ...opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    if (opts.slowStdout) {
      const reader = setInterval(() => {
        proc.stdout?.pause();
        setTimeout(() => proc.stdout?.resume(), 250);
      }, 300);
      proc.once('exit', () => clearInterval(reader));
    }
    proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    exit = new Promise((resolve) => proc.once('exit', (code) => resolve(code)));
    if (opts.noWait) return;
    try {
      await waitUntil(async () => {
        if (proc.exitCode !== null) throw new Error(`daemon exited with ${proc.exitCode} before it was ready:\n${output}`);
        return /\bready: /.test(output);
      }, 20_000, () => `daemon not ready after 20 s:\n${output}`);
    } catch (error) {
      // A daemon that never became ready must not outlive the test that started it.
      proc.kill('SIGKILL');
      throw error;
    }
  };
  await launch();

  const handle: DaemonHandle = {
    controlUrl,
    controlPort,
    servicesUrl: `http://127.0.0.1:${servicesPort}`,
    cdsAddress: `127.0.0.1:${cdsPort}`,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    gatewayPort,
    dataDir,
    get token() {
      return readFileSync(join(dataDir, 'control.token'), 'utf8').trim();
    },
    pid: () => child?.pid,
    logs: () => output,
    exited: () => exit,
    closeStdout: () => child?.stdout?.destroy(),
    async stop(signal = 'SIGTERM', timeoutMs = 15_000) {
      if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
      child.kill(signal);
      const timer = setTimeout(() => child?.kill('SIGKILL'), timeoutMs);
      const code = await exit;
      clearTimeout(timer);
      return code;
    },
    start: launch,
    async dispose() {
      await handle.stop('SIGKILL', 1000);
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return handle;
}

/** Where the daemons of one test keep their store: SQLite in the data dir they share, or a PostgreSQL schema of their own. */
export interface DaemonDatabase {
  readonly kind: 'sqlite' | 'postgres';
  /** The environment that points a daemon's store at it (none for SQLite: the data dir holds the file). */
  readonly env: Readonly<Record<string, string>>;
  /** A store on it, as another process sees it; `dataDir` is the daemons' data dir. */
  open(dataDir: string): Promise<Store>;
  /** Drops the PostgreSQL schema and all in it; SQLite's file goes with the data dir. */
  drop(): Promise<void>;
}

/** A database for daemons to share; for PostgreSQL, a new schema in the test server (TEST_POSTGRES_URL). */
export async function daemonDatabase(kind: 'sqlite' | 'postgres'): Promise<DaemonDatabase> {
  if (kind === 'sqlite') return { kind, env: {}, open: async (dataDir) => new SqliteStore({ file: join(dataDir, 'portico.db') }), drop: async () => undefined };
  const schema = `portico_e2e_${randomBytes(4).toString('hex')}`;
  await asAdmin(`CREATE SCHEMA ${quoteIdent(schema)}`);
  const url = new URL(TEST_POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    kind,
    env: { PORTICO_DATABASE_URL: url.toString() },
    open: () => PostgresStore.connect({ url: TEST_POSTGRES_URL, schema }),
    drop: () => asAdmin(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`),
  };
}

async function asAdmin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Polls `check` until it returns true. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, describe: () => string = () => 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out: ${describe()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Calls a control API query over plain HTTP, as any client could. */
export async function controlQuery(daemon: { controlUrl: string }, path: string, token: string | null): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${daemon.controlUrl}/trpc/${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body };
}
