// Two Portico builds side by side against the bare undici proxy, for a change whose effect is
// smaller than what one `bench:gateway` run can show (docs/gateway.md, "Performance"). The same
// nginx backend, the plain proxy route of the gateway benchmark with access lines on, one
// daemon per build; each round measures the bare proxy and both builds once, in an order that
// rotates from round to round, at saturation (wrk -c32) and then at a fixed rate (wrk paced by
// fixed-rate.lua). Printed per target: the medians over the rounds of req/s and of the CPU time
// the process spent per request (all threads, and the main thread), read from /proc; and each
// build's CPU per request divided by the bare proxy's in the same round, whose median is the
// figure to compare (the machine's drift moves a round's targets together).
// Needs a build (npm run build), nginx and wrk. BENCH_BEFORE names the other build's
// bin/portico.js (a copy of daemon/ with its dist/, kept inside the checkout so it finds
// node_modules); BENCH_PORTICO the build under test (this checkout's by default). Without
// BENCH_BEFORE the two daemons are the one build with access lines on and off: what the lines cost.
// BENCH_ROUTE=open, expr, fwd, err, gen or url sends Portico's requests to that route of the benchmark's config
// (portico-config.mjs says what each holds) instead of the `/**` route.
//   BENCH_BEFORE=.before/bin/portico.js BENCH_ROUNDS=6 BENCH_SECONDS=6 BENCH_RATE=8000 node scripts/bench/gateway/compare.mjs
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuUs, daemonEnv, freePort, mainThreadCpuUs, need, nginxConf, nodeFlags, startNginx, startWrk, waitFor } from '../lib.mjs';
import { BENCH_ITEM, porticoConfig } from './portico-config.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const RATE = Number(process.env.BENCH_RATE ?? 8000);
const CONNECTIONS = 32;
const PATH = '/bench/item.json';
const ROUTE = process.env.BENCH_ROUTE ?? '';
if (!['', 'open', 'expr', 'fwd', 'err', 'gen', 'url'].includes(ROUTE)) throw new Error(`bench: BENCH_ROUTE=${ROUTE}: open, expr, fwd, err, gen or url (unset: the plain proxy route)`);
/**
 * The proxies under test run on one core, wrk and the nginx backend on the other: left to the
 * scheduler, where a proxy lands relative to them moved its CPU per request by 10-30 % from
 * run to run (two copies of one build differed that much), far more than the changes measured.
 */
const PROXY_CPU = '1';
const LOAD_CPU = '0';
const CHECKOUT = resolve(process.env.BENCH_PORTICO ?? join(ROOT, 'daemon/bin/portico.js'));
/** The daemons side by side: name, build, access lines on. Without BENCH_BEFORE, one build with its access lines on and off. */
const BUILDS = process.env.BENCH_BEFORE
  ? [
      ['before', resolve(process.env.BENCH_BEFORE), true, nodeFlags(process.env.BENCH_BEFORE_NODE_FLAGS)],
      ['after', CHECKOUT, true, nodeFlags(process.env.BENCH_NODE_FLAGS)],
    ]
  : [
      ['lines on', CHECKOUT, true, nodeFlags(process.env.BENCH_NODE_FLAGS)],
      ['lines off', CHECKOUT, false, nodeFlags(process.env.BENCH_NODE_FLAGS)],
    ];

need('nginx');
need('wrk');
const dir = mkdtempSync(join(tmpdir(), 'portico-bench-compare-'));
chmodSync(dir, 0o755);
const children = [];
process.on('exit', () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
});
/** Sets the CPU of every thread of `pid` (taskset). */
function pin(pid, cpu) {
  execFileSync('taskset', ['-a', '-p', '-c', cpu, String(pid)], { stdio: 'ignore' });
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const [backendPort, barePort, ...ports] = await Promise.all(Array.from({ length: 2 + BUILDS.length * 4 }, freePort));
const www = join(dir, 'www');
mkdirSync(join(www, 'bench'), { recursive: true });
writeFileSync(join(www, PATH), BENCH_ITEM);
const nginx = startNginx(nginxConf(dir, 'backend', `  server { listen 127.0.0.1:${backendPort}; root ${www}; }`));
children.push(nginx);
const bare = spawn('taskset', ['-c', PROXY_CPU, process.execPath, join(HERE, 'bare-proxy.mjs'), String(barePort), `http://127.0.0.1:${backendPort}`], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
children.push(bare);
const targets = [{ name: 'bare undici proxy', url: `http://127.0.0.1:${barePort}${PATH}`, pid: bare.pid }];
mkdirSync(join(dir, 'log'));
// The configuration's jwt route (not measured here) needs its key.
writeFileSync(join(dir, 'jwt-public.pem'), generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }));
BUILDS.forEach(([name, bin, lines, nodeFlags], i) => {
  const [port, control, services, cds] = ports.slice(i * 4, i * 4 + 4);
  const file = name.replace(' ', '-');
  const config = join(dir, `${file}.hcl`);
  writeFileSync(config, porticoConfig(port, backendPort, 0, lines));
  const env = daemonEnv(join(dir, `data-${file}`), { control, services, cds }, { PORTICO_GATEWAY_PROCESSES: '1' });
  // Access lines to a file, as in bench:gateway.
  const log = spawn('taskset', ['-c', PROXY_CPU, 'sh', '-c', `exec "$0" "$@" > ${join(dir, 'log', `${file}.log`)}`, process.execPath, ...nodeFlags, bin, 'daemon', '--mode', 'gateway', '-f', config], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(log);
  targets.push({ name: `Portico ${name} (${bin.replace(ROOT, '')} ${nodeFlags.join(' ')})`, url: `http://127.0.0.1:${port}${ROUTE ? `/${ROUTE}` : ''}${PATH}`, pid: log.pid });
});
for (const target of targets) await waitFor(async () => (await fetch(target.url)).ok, target.name);
// nginx's master and its worker (forked by then) on the load core.
pin(nginx.pid, LOAD_CPU);
for (const worker of execFileSync('pgrep', ['-P', String(nginx.pid)], { encoding: 'utf8' }).trim().split('\n')) pin(Number(worker), LOAD_CPU);
for (const target of targets) await startWrk(target.url, { threads: 1, connections: CONNECTIONS, seconds: 3 }).done;

const runs = { saturation: [], rate: [] };
for (let r = 0; r < ROUNDS; r++) {
  // Rotating order: no target is always first or last in a round.
  const order = targets.map((_, i) => targets[(i + r) % targets.length]);
  for (const [kind, script] of [['saturation', null], ['rate', join(HERE, 'fixed-rate.lua')]]) {
    const round = new Map();
    for (const target of order) {
      await new Promise((done) => setTimeout(done, 1000));
      const cpu = cpuUs(target.pid);
      const main = mainThreadCpuUs(target.pid);
      const run = startWrk(target.url, { threads: 1, connections: CONNECTIONS, seconds: SECONDS, ...(script ? { script, scriptArgs: [RATE] } : {}) });
      pin(run.child.pid, LOAD_CPU);
      const result = await run.done;
      round.set(target, { rps: result.rps, p99: result.p99, p99Ms: result.p99Ms, cpu: (cpuUs(target.pid) - cpu) / result.requests, main: (mainThreadCpuUs(target.pid) - main) / result.requests });
    }
    runs[kind].push(round);
  }
  console.log(`round ${r + 1} of ${ROUNDS} done`);
}

for (const [kind, rounds] of Object.entries(runs)) {
  console.log(kind === 'saturation' ? `\nat saturation (wrk -c${CONNECTIONS}), medians of ${ROUNDS} rounds:` : `\nat a fixed ${RATE} req/s, medians of ${ROUNDS} rounds:`);
  for (const target of targets) {
    const of = (key) => median(rounds.map((round) => round.get(target)[key]));
    const relative = target === targets[0] ? '' : `  ${median(rounds.map((round) => round.get(target).cpu / round.get(targets[0]).cpu)).toFixed(3)}x the bare proxy's CPU [${rounds.map((round) => (round.get(target).cpu / round.get(targets[0]).cpu).toFixed(2)).join(' ')}]`;
    // At a fixed rate the tail is the figure users feel: each round's p99.
    // A target that could not keep up with the asked rate ran saturated: its tail is not a paced one.
    const held = kind !== 'rate' || of('rps') >= RATE * 0.95 ? '' : `  (${RATE} req/s not held: saturated; lower BENCH_RATE)`;
    const tail = kind === 'rate' ? `  p99 ${of('p99Ms').toFixed(2)} ms [${rounds.map((round) => round.get(target).p99).join(' ')}]${held}` : '';
    console.log(`  ${target.name.padEnd(44)} ${of('rps').toFixed(0).padStart(6)} req/s  cpu ${of('cpu').toFixed(1).padStart(5)} µs/req (main ${of('main').toFixed(1)})${relative}${tail}`);
  }
}
process.exit(0);
