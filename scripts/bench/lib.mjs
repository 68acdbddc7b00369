// What the wrk/nginx benchmarks share: tool checks, free ports, readiness polling, running wrk
// and reading its summary, and a throwaway nginx configuration.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { DAEMON_NODE_FLAGS } from '../daemon-node-flags.mjs';

/** Node flags from a benchmark's environment variable (space-separated), or the daemon's own when it is unset. */
export const nodeFlags = (value) => (value === undefined ? DAEMON_NODE_FLAGS : value.split(' ').filter(Boolean));

/** Exits with a hint when `command` is not installed. */
export function need(command) {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
  } catch {
    console.error(`bench: ${command} is not installed; run: apt-get install -y nginx wrk`);
    process.exit(2);
  }
}

export const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** /proc/PID/stat (or /proc/PID/task/TID/stat) fields after the command name (Linux); null elsewhere. */
export function statFields(path) {
  try {
    return readFileSync(path, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null;
  }
}

/** Microseconds from two /proc clock-tick fields (11 and 12: user and system; 13 and 14: the reaped children's); NaN without fields. */
function ticksUs(fields, at = 11) {
  return fields ? ((Number(fields[at]) + Number(fields[at + 1])) * 1e6) / CLOCK_TICKS : NaN;
}

/** CPU time (µs, user + system) a process has used so far, all its threads; NaN off Linux. */
export const cpuUs = (pid) => ticksUs(statFields(`/proc/${pid}/stat`));

/** CPU time (µs) of a process's main thread alone (the event loop of a Node process); NaN off Linux. */
export const mainThreadCpuUs = (pid) => ticksUs(statFields(`/proc/${pid}/task/${pid}/stat`));

/** CPU time (µs) of the children a process reaped, from its stat fields. */
export const reapedCpuUs = (fields) => ticksUs(fields, 13);

/** A loopback port nothing listens on right now. */
export const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

/** Polls `check` every 100 ms until it resolves truthy; throws after `ms`. */
export async function waitFor(check, what, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`bench: ${what} not ready after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A wrk duration (`850.00us`, `1.23ms`, `1.02s`, `2.00m`) in milliseconds; NaN when unreadable. */
export function durationMs(text) {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(String(text));
  if (!match) return NaN;
  const scale = { us: 0.001, ms: 1, s: 1000, m: 60_000 }[match[2]];
  return Number(match[1]) * scale;
}

/** `value / reference` printed as a ratio with met / not met against `target` (at least, or at most with `atMost`). */
export function verdict(label, value, target, { atMost = false, unit = 'x' } = {}) {
  const meets = (v) => (atMost ? v <= target : v >= target);
  const met = meets(value);
  const shown = unit === 'x' ? fixedAsJudged(value, 3, meets) : unit === 'ms' ? `${fixedAsJudged(value, 1, meets)} ms` : `${value} ${unit}`;
  const wanted = unit === 'x' ? `${target}x` : unit === 'ms' ? `${target.toFixed(1)} ms` : `${target} ${unit}`;
  return `  ${label}: ${shown} (target ${atMost ? '<=' : '>='} ${wanted}): ${met ? 'met' : 'not met'}`;
}

/**
 * `value` with `digits` decimals, or more where those would round it onto the other side of its
 * target (0.39976 against 0.4 shows as 0.3998, not as a 0.400 that was not met).
 */
function fixedAsJudged(value, digits, meets) {
  let shown = value.toFixed(digits);
  for (let more = digits + 1; more <= 10 && meets(Number(shown)) !== meets(value); more++) shown = value.toFixed(more);
  return shown;
}

/** The figures of a wrk summary (run with --latency). */
export function parseWrk(out) {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const transfer = /Transfer\/sec:\s+(\S+)/.exec(out)?.[1] ?? '?';
  // Anchored: the thread stats also end in percentages (`74.50%`).
  const p50 = /^\s+50%\s+(\S+)/m.exec(out)?.[1] ?? '?';
  const p99 = /^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? '?';
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return { rps, transfer, p50, p99, p50Ms: durationMs(p50), p99Ms: durationMs(p99), requests, non2xx, socketErrors };
}

/**
 * Starts wrk on `url` without blocking this process's event loop (a blocked loop would leave
 * stale keep-alive sockets in fetch's pool). `done` resolves with the parsed summary; `stop()`
 * interrupts it (wrk prints its summary on SIGINT) and resolves the same. `script` is a wrk Lua
 * script, `scriptArgs` what its init() receives.
 */
export function startWrk(url, { threads, connections, seconds, headers = {}, script = null, scriptArgs = [] }) {
  const headerArgs = Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]);
  const scriptOptions = script === null ? [] : ['-s', script];
  const tail = scriptArgs.length === 0 ? [] : ['--', ...scriptArgs.map(String)];
  const child = spawn('wrk', [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--latency', ...scriptOptions, ...headerArgs, url, ...tail], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  const done = new Promise((resolve) => child.on('exit', () => resolve(parseWrk(out))));
  return {
    child,
    done,
    stop() {
      child.kill('SIGINT');
      return done;
    },
  };
}

/** Writes `<dir>/<name>/nginx.conf`: one worker, no access log, temp paths inside, `server` blocks as given. Returns the folder. */
export function nginxConf(dir, name, server) {
  const base = join(dir, name);
  mkdirSync(base, { recursive: true });
  writeFileSync(
    join(base, 'nginx.conf'),
    `worker_processes 1;
pid ${base}/nginx.pid;
error_log ${base}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${base}/tmp-body;
  proxy_temp_path ${base}/tmp-proxy;
  fastcgi_temp_path ${base}/tmp-fastcgi;
  uwsgi_temp_path ${base}/tmp-uwsgi;
  scgi_temp_path ${base}/tmp-scgi;
  types { application/json json; }
${server}
}
`,
  );
  return base;
}

/** Runs nginx in the foreground on a folder made by nginxConf. */
export function startNginx(base) {
  return spawn('nginx', ['-p', base, '-c', join(base, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'inherit' });
}

/**
 * The environment of a daemon under a benchmark: its data folder and its own control, services
 * and discovery ports on loopback, only warnings in its own log, then `extra`.
 */
export function daemonEnv(dataDir, { control, services, cds }, extra = {}) {
  return {
    ...process.env,
    PORTICO_DATA_DIR: dataDir,
    PORTICO_CONTROL_ADDR: `127.0.0.1:${control}`,
    PORTICO_SERVICES_ADDR: `127.0.0.1:${services}`,
    PORTICO_CDS_ADDR: `127.0.0.1:${cds}`,
    PORTICO_LOG_LEVEL: 'warn',
    ...extra,
  };
}
