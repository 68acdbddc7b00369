// User-space instructions per proxied request, counted by valgrind's callgrind: the bare undici
// proxy, Portico with access lines on and off, and optionally another Portico build. Where
// `compare.mjs` reads CPU time, which moved by 10-30 % from run to run on these shared 2-core
// machines, an instruction count is the same to a few tenths of a per cent for the same build
// and load, so it resolves changes of 1-2 % (docs/gateway.md, "Performance"). It counts no
// kernel time (the system calls a request makes are the same for every target: profile.mjs
// with BENCH_STRACE=1) and no waiting; under valgrind a process runs about 50 times slower.
//
// Each target runs alone under callgrind with its instrumentation off while a loopback client
// (undici, BENCH_CONNECTIONS requests in flight) warms it up with BENCH_WARMUP requests; then
// instrumentation goes on for BENCH_REQUESTS requests (every thread: JIT compiler and GC
// helpers count too; the main thread's share, which bounds a process's rate, is printed apart). Printed per target: thousands of instructions a request, and those of
// the JIT compiler, of formatting dates and numbers (V8's date printer and libc's printf), of
// the WHATWG URL parser (ada), and the rest; then each target against the bare proxy.
// BENCH_FUNCTIONS=N also prints each target's N functions with the most instructions a request,
// JavaScript by name: node runs with --perf-basic-prof and the addresses of compiled code that
// callgrind knows no name for are looked up in the map V8 writes (/tmp/perf-<pid>.map).
// BENCH_NODE_FLAGS replaces the daemon's Node flags for portico and quiet, BENCH_BEFORE_NODE_FLAGS
// for before (one build under two sets of flags: BENCH_BEFORE naming this checkout's bin/portico.js).
// BENCH_ROUTE=open, expr, fwd, err, gen or url sends Portico's requests to that route of the benchmark's config
// (portico-config.mjs says what each holds) instead of the `/**` route.
// Needs a build (npm run build), nginx and valgrind.
//   BENCH_BEFORE=.before/bin/portico.js BENCH_TARGETS=bare,portico,before BENCH_WARMUP=15000 BENCH_REQUESTS=3000 node scripts/bench/gateway/instructions.mjs
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { daemonEnv, freePort, need, nginxConf, nodeFlags, startNginx, waitFor } from '../lib.mjs';
import { BENCH_ITEM, porticoConfig } from './portico-config.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const WARMUP = Number(process.env.BENCH_WARMUP ?? 15_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const FUNCTIONS = Number(process.env.BENCH_FUNCTIONS ?? 0);
const PATH = '/bench/item.json';
const ROUTE = process.env.BENCH_ROUTE ?? '';
if (!['', 'open', 'expr', 'fwd', 'err', 'gen', 'url'].includes(ROUTE)) throw new Error(`bench: BENCH_ROUTE=${ROUTE}: open, expr, fwd, err, gen or url (unset: the plain proxy route)`);
const CHECKOUT = resolve(process.env.BENCH_PORTICO ?? join(ROOT, 'daemon/bin/portico.js'));
const BEFORE = process.env.BENCH_BEFORE ? resolve(process.env.BENCH_BEFORE) : null;
/** The daemon's Node flags, or BENCH_NODE_FLAGS (portico and quiet) and BENCH_BEFORE_NODE_FLAGS (before) in their place, as in compare.mjs. */
const FLAGS = nodeFlags(process.env.BENCH_NODE_FLAGS);
const BEFORE_FLAGS = nodeFlags(process.env.BENCH_BEFORE_NODE_FLAGS);
const TARGETS = (process.env.BENCH_TARGETS ?? (BEFORE ? 'bare,portico,before' : 'bare,portico,quiet')).split(',').map((t) => t.trim());
if (TARGETS.includes('before') && !BEFORE) throw new Error('bench: the target "before" needs BENCH_BEFORE (another build\'s bin/portico.js)');

need('nginx');
need('valgrind');
need('callgrind_control');
const dir = mkdtempSync(join(tmpdir(), 'portico-instructions-'));
// nginx's workers read the files as another user.
chmodSync(dir, 0o755);
mkdirSync(join(dir, 'www/bench'), { recursive: true });
writeFileSync(join(dir, 'www', PATH), BENCH_ITEM);
// The config's jwt route reads a key file beside it.
const JWT_KEY = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
const children = [];
// SIGTERM: nginx's master then stops its worker too (SIGKILL would leave the worker running).
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGTERM')));
const backendPort = await freePort();
children.push(startNginx(nginxConf(dir, 'backend', `  server { listen 127.0.0.1:${backendPort}; root ${join(dir, 'www')}; }`)));
await waitFor(async () => (await fetch(`http://127.0.0.1:${backendPort}${PATH}`)).ok, 'backend nginx');

/** Instructions of one target: { total, compiler, formatting, url, rest } per request. */
async function count(target) {
  const [port, control, services, cds] = await Promise.all(Array.from({ length: 4 }, freePort));
  const base = join(dir, target);
  mkdirSync(base, { recursive: true });
  const out = join(base, 'callgrind.out');
  const valgrind = ['--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', `--callgrind-out-file=${out}`, '--smc-check=all-non-file'];
  let args;
  if (target === 'bare') args = [...(FUNCTIONS > 0 ? ['--perf-basic-prof'] : []), join(HERE, 'bare-proxy.mjs'), String(port), `http://127.0.0.1:${backendPort}`];
  else {
    const config = join(base, 'portico.hcl');
    writeFileSync(config, porticoConfig(port, backendPort, 0, target !== 'quiet'));
    writeFileSync(join(base, 'jwt-public.pem'), JWT_KEY);
    args = [...(target === 'before' ? BEFORE_FLAGS : FLAGS), ...(FUNCTIONS > 0 ? ['--perf-basic-prof'] : []), target === 'before' ? BEFORE : CHECKOUT, 'daemon', '--mode', 'gateway', '-f', config];
  }
  const env = daemonEnv(join(base, 'data'), { control, services, cds }, { PORTICO_GATEWAY_PROCESSES: '1' });
  // Access lines go to a file, as in the other gateway benchmarks, in a directory of its own: the
  // daemon watches its configuration's directory, and under valgrind, where a request takes 50
  // times as long, the watcher's work on every write of the log (20 ms apart) counted as 70k
  // instructions a request and kept the JIT compiler busy (docs/performance-log.md, "A fifteenth machine").
  mkdirSync(join(base, 'log'), { recursive: true });
  const log = openSync(join(base, 'log', 'output.log'), 'w');
  const proxy = spawn('valgrind', [...valgrind, process.execPath, ...args], { cwd: ROOT, env, stdio: ['ignore', log, 'pipe'] });
  closeSync(log);
  let stderr = '';
  proxy.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  children.push(proxy);
  const origin = `http://127.0.0.1:${port}`;
  const path = target === 'bare' || ROUTE === '' ? PATH : `/${ROUTE}${PATH}`;
  try {
    await waitFor(async () => (await fetch(`${origin}${PATH}`)).ok, `${target} under valgrind`, 300_000);
  } catch (error) {
    throw new Error(`${error.message}\n${stderr}`);
  }
  const pool = new Pool(origin, { connections: CONNECTIONS });
  const load = async (n) => {
    let left = n;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (left-- > 0) {
          const answer = await pool.request({ path, method: 'GET' });
          const body = await answer.body.text();
          if (answer.statusCode !== 200 || body !== BENCH_ITEM) throw new Error(`bench: ${target} answered ${answer.statusCode}`);
        }
      }),
    );
  };
  await load(WARMUP);
  const callgrind = (...a) => execFileSync('callgrind_control', [...a, String(proxy.pid)], { stdio: 'ignore' });
  callgrind('-i', 'on');
  await load(REQUESTS);
  callgrind('-i', 'off');
  callgrind('-d');
  await pool.close();
  proxy.kill('SIGKILL');
  await new Promise((done) => proxy.once('exit', done));
  // The dump is the files with a part number, one per thread (`.1-01` the main thread); those valgrind writes at exit are empty (instrumentation off).
  const dumps = readdirSync(base)
    .map((f) => /^callgrind\.out\.(\d+)-(\d+)$/.exec(f))
    .filter((m) => m !== null);
  if (dumps.length === 0) throw new Error(`bench: no callgrind dump for ${target}`);
  const part = Math.max(...dumps.map((m) => Number(m[1])));
  const threads = dumps.filter((m) => Number(m[1]) === part).map((m) => ({ thread: Number(m[2]), ...summarize(readFileSync(join(base, m[0]), 'utf8')) }));
  const result = { main: 0, total: 0, compiler: 0, formatting: 0, url: 0, rest: 0, functions: new Map() };
  for (const t of threads) {
    if (t.thread === 1) result.main = t.total;
    for (const key of ['total', 'compiler', 'formatting', 'url', 'rest']) result[key] += t[key];
    for (const [fn, n] of t.functions) result.functions.set(fn, (result.functions.get(fn) ?? 0) + n);
  }
  if (FUNCTIONS > 0) result.functions = named(result.functions, join(tmpdir(), `perf-${proxy.pid}.map`));
  return result;
}

/** A C++ name without its trailing parameter list (`f(int) const` -> `f`), so overloads and recursion levels add up. */
function withoutParameters(name) {
  const text = name.replace(/ const$/, '');
  if (!text.endsWith(')')) return name;
  let depth = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    if (text[i] === ')') depth++;
    else if (text[i] === '(' && --depth === 0) return text.slice(0, i);
  }
  return name;
}

/**
 * Self instructions a request by function, with the functions callgrind names only by an address
 * (code V8 compiled) named from V8's perf map: `start size name` lines, hex, the latest code at an
 * address winning. Returns [name, instructions a request] by cost, highest first.
 */
function named(costs, mapFile) {
  let ranges = [];
  try {
    for (const line of readFileSync(mapFile, 'utf8').split('\n')) {
      const m = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
      if (m) ranges.push([parseInt(m[1], 16), parseInt(m[2], 16), m[3]]);
    }
  } catch {
    ranges = [];
  }
  // Later entries replace earlier ones at the same start (code moved or collected, the space reused).
  const byStart = new Map(ranges.map((r) => [r[0], r]));
  const sorted = [...byStart.values()].sort((a, b) => a[0] - b[0]);
  const find = (address) => {
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [start, size] = sorted[mid];
      if (address < start) hi = mid - 1;
      else if (address >= start + size) lo = mid + 1;
      else return sorted[mid][2];
    }
    return null;
  };
  const out = new Map();
  for (const [fn, n] of costs) {
    const address = /^0x([0-9a-f]+)$/.exec(fn.replace(/ \[.*$/, '').replace(/^.*:/, '').trim());
    const name = address ? (find(parseInt(address[1], 16)) ?? 'compiled code (not in the map)') : withoutParameters(fn.replace(/^\?\?\?:/, '').replace(/ \[[^\]]*\]$/, '').replace(/'\d+$/, ''));
    out.set(name, (out.get(name) ?? 0) + n / REQUESTS);
  }
  return [...out].sort((a, b) => b[1] - a[1]);
}

/** Self instructions per function from a callgrind dump, grouped. */
function summarize(text) {
  const names = new Map();
  const groups = { total: 0, compiler: 0, formatting: 0, url: 0 };
  const functions = new Map();
  let fn = '';
  let skipNext = false;
  for (const line of text.split('\n')) {
    if (line.startsWith('cfn=')) {
      // A called function: names its id the first time it appears.
      const m = /^cfn=\((\d+)\) (.*)$/.exec(line);
      if (m) names.set(m[1], m[2]);
      continue;
    }
    if (line.startsWith('fn=')) {
      // fn=(id) name, or fn=(id) for a name given before.
      const m = /^fn=\((\d+)\)(?: (.*))?$/.exec(line);
      if (m) {
        if (m[2] !== undefined) names.set(m[1], m[2]);
        fn = names.get(m[1]) ?? '';
      }
      continue;
    }
    // Cost lines of the current function: "<line> <Ir>" (or "+n"/"-n"/"*" relative positions); calls= lines are followed by an inclusive cost line, skipped.
    if (line.startsWith('calls=')) {
      skipNext = true;
      continue;
    }
    const m = /^(?:[+-]?\d+|\*)\s+(\d+)$/.exec(line);
    if (!m) continue;
    if (skipNext) {
      skipNext = false;
      continue;
    }
    const n = Number(m[1]);
    groups.total += n;
    functions.set(fn, (functions.get(fn) ?? 0) + n);
    if (/compiler::|Zone/.test(fn)) groups.compiler += n;
    else if (/printf|StringStream|FormatDate|DateCache|_itoa|xsputn/.test(fn)) groups.formatting += n;
    else if (/ada::|url::/.test(fn)) groups.url += n;
  }
  const totals = Number(/^totals:\s*(\d+)/m.exec(text)?.[1] ?? 0);
  if (!(Math.abs(groups.total - totals) <= totals * 0.001)) throw new Error(`bench: the dump's self costs add up to ${groups.total}, its totals line says ${totals}`);
  const per = (n) => n / REQUESTS / 1000;
  return { total: per(groups.total), compiler: per(groups.compiler), formatting: per(groups.formatting), url: per(groups.url), rest: per(groups.total - groups.compiler - groups.formatting - groups.url), functions };
}

const NAMES = { bare: 'bare undici proxy', portico: `Portico lines on (${CHECKOUT === resolve(join(ROOT, 'daemon/bin/portico.js')) ? 'this checkout' : CHECKOUT})`, quiet: 'Portico lines off', before: `Portico lines on (${BEFORE})` };
console.log(`instructions a request (thousands; callgrind, every thread and the main thread apart), ${REQUESTS} requests after ${WARMUP} of warm-up, ${CONNECTIONS} in flight${ROUTE ? `; Portico on its /${ROUTE} route` : ''}:`);
const results = new Map();
for (const target of TARGETS) {
  const r = await count(target);
  results.set(target, r);
  const bare = results.get('bare');
  const against = bare && target !== 'bare' ? `  ${(r.total / bare.total).toFixed(3)}x the bare proxy (main thread ${(r.main / bare.main).toFixed(3)}x)` : '';
  console.log(
    `  ${(NAMES[target] ?? target).padEnd(40)} ${r.total.toFixed(1).padStart(6)}k, main thread ${r.main.toFixed(1)}k  (JIT compiler ${r.compiler.toFixed(1)}k, date and number printing ${r.formatting.toFixed(1)}k, URL parser ${r.url.toFixed(1)}k, the rest ${r.rest.toFixed(1)}k)${against}`,
  );
  // Under valgrind's slowness V8 may still be tiering up after the warm-up (seen on slow machines
  // at 15,000 requests: 86-92k of the JIT a request); the counts then say more about the JIT than the code.
  if (r.compiler > r.total * 0.1) console.log(`    the JIT compiler is ${((r.compiler / r.total) * 100).toFixed(0)} % of this count: V8 was still compiling after ${WARMUP} requests; run again with a larger BENCH_WARMUP (45000 finished it on a slow machine)`);
}
for (const [target, r] of FUNCTIONS > 0 ? results : []) {
  console.log(`${NAMES[target] ?? target}: the ${FUNCTIONS} functions with the most instructions a request (self)`);
  for (const [name, n] of r.functions.slice(0, FUNCTIONS)) console.log(`  ${n.toFixed(0).padStart(7)}  ${name.slice(0, 150)}`);
}
if (results.has('before') && results.has('portico')) {
  const [after, before] = [results.get('portico'), results.get('before')];
  console.log(`  this checkout / before: ${(after.total / before.total).toFixed(3)} (main thread ${(after.main / before.main).toFixed(3)})`);
}
// A proxy killed after its count has a signal code and no exit code: it has gone already (waiting for its exit would never end).
await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => new Promise((done) => (c.once('exit', done), c.kill('SIGTERM')))));
process.exit(0);
