// The paced tail and the daemon's garbage collector: Portico (a plain proxy route, access lines
// on and written to a file, as in run.mjs) and the bare undici proxy take turns at a fixed rate,
// and for each of Portico's turns the daemon's own `--trace-gc` lines (in its log) are counted:
// scavenges, mark-compacts, the longest pause. Optionally the daemon first serves saturated
// load on its plain, open and jwt routes, as it does in run.mjs's throughput rounds before its
// paced pairs (BENCH_HISTORY=1), and then waits BENCH_IDLE seconds with no load, as a daemon of
// run.mjs waits while the other targets run. docs/performance-log.md, "A nineteenth machine" to
// "A twenty-second machine", says what it found.
//   BENCH_RATE=12600 BENCH_ROUNDS=4 BENCH_HISTORY=1 BENCH_IDLE=0 BENCH_JWT=1 BENCH_ACCESS_LINES=1
//   BENCH_GC_FLAGS="--trace-gc" BENCH_GC_SHOW='Mark-Compact' node scripts/bench/gateway/paced-gc.mjs
// BENCH_GC_FLAGS are added after the daemon's own flags, so one of them overrides a daemon flag
// (`--semi-space-growth-factor=2`: V8 takes the last); the counts read --trace-gc's lines, or
// --trace-gc-nvp's, which also give the bytes each scavenge promoted: the median is printed, as
// the first scavenge after an idle spell promotes megabytes. BENCH_GC_SHOW prints the log lines
// of each of Portico's turns that match that regular expression. The daemon's folder (with its
// log) is left in the temporary directory and named at the end. BENCH_PROCESSES=2 runs the
// daemon with that many gateway processes (PORTICO_GATEWAY_PROCESSES) against the bare proxy as
// that many processes, as run.mjs's second paced pair does; the counts then add up every
// process's collections, and the CPU is the daemon's with every process it forked.
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { DAEMON_NODE_FLAGS } from '../../daemon-node-flags.mjs';
import { daemonEnv, freePort, need, nginxConf, startNginx, startWrk, waitFor } from '../lib.mjs';
import { BENCH_ITEM, porticoConfig } from './portico-config.mjs';
import { treeCpuUs } from './process-tree.mjs';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = join(HERE, '..', '..', '..');
const RATE = Number(process.env.BENCH_RATE ?? 12600);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const HISTORY = process.env.BENCH_HISTORY === '1';
/** Seconds of no load before the paced turns (as the daemons of run.mjs wait while other targets run). */
const IDLE = Number(process.env.BENCH_IDLE ?? 0);
const JWT = process.env.BENCH_JWT !== '0';
const ACCESS_LINES = process.env.BENCH_ACCESS_LINES !== '0';
const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 1);
const GC_FLAGS = (process.env.BENCH_GC_FLAGS ?? '--trace-gc').split(' ').filter(Boolean);
const SHOW = process.env.BENCH_GC_SHOW ? new RegExp(process.env.BENCH_GC_SHOW) : null;
const PATH = '/bench/item.json';

need('nginx');
need('wrk');
const dir = mkdtempSync(join(tmpdir(), 'portico-paced-gc-'));
// nginx's worker reads the served file as another user.
chmodSync(dir, 0o755);
const children = [];
process.on('exit', () => children.forEach((child) => child.kill('SIGTERM')));

const [backendPort, barePort, porticoPort, controlPort, servicesPort, cdsPort] = await Promise.all(Array.from({ length: 6 }, freePort));
const www = join(dir, 'www');
mkdirSync(join(www, 'bench'), { recursive: true });
writeFileSync(join(www, PATH), BENCH_ITEM);
children.push(startNginx(nginxConf(dir, 'backend', `  server { listen 127.0.0.1:${backendPort}; root ${www}; }`)));
children.push(spawn(process.execPath, [join(HERE, 'bare-proxy.mjs'), String(barePort), `http://127.0.0.1:${backendPort}`, ...(PROCESSES > 1 ? [String(PROCESSES)] : [])], { stdio: ['ignore', 'ignore', 'inherit'] }));

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
writeFileSync(join(dir, 'jwt-public.pem'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
const token = await new SignJWT({ sub: 'bench' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('2h').sign(rsa.privateKey);
writeFileSync(join(dir, 'portico.hcl'), porticoConfig(porticoPort, backendPort, 0, ACCESS_LINES));
mkdirSync(join(dir, 'log'));
const logFile = join(dir, 'log/portico.log');
const logFd = openSync(logFile, 'w');
const env = daemonEnv(join(dir, 'data'), { control: controlPort, services: servicesPort, cds: cdsPort }, { PORTICO_GATEWAY_PROCESSES: String(PROCESSES) });
const daemon = spawn(process.execPath, [...DAEMON_NODE_FLAGS, ...GC_FLAGS, join(ROOT, 'daemon/bin/portico.js'), 'daemon', '--mode', 'gateway', '-f', join(dir, 'portico.hcl')], { cwd: ROOT, env, stdio: ['ignore', logFd, 'inherit'] });
closeSync(logFd);
children.push(daemon);

const viaPortico = `http://127.0.0.1:${porticoPort}${PATH}`;
const viaBare = `http://127.0.0.1:${barePort}${PATH}`;
await waitFor(async () => (await fetch(viaPortico)).ok, 'portico');
await waitFor(async () => (await fetch(viaBare)).ok, 'bare proxy');
const load = { threads: 1, connections: 32 };
for (const url of [viaBare, viaPortico]) await startWrk(url, { ...load, seconds: 3 }).done;
if (HISTORY) {
  const routes = [[viaPortico], [viaBare], ...(JWT ? [[viaPortico.replace('/bench/', '/jwt/bench/'), { Authorization: `Bearer ${token}` }]] : []), [viaPortico.replace('/bench/', '/open/bench/')]];
  for (let round = 0; round < 3; round++) for (const [url, headers] of routes) await startWrk(url, { ...load, seconds: 10, headers }).done;
}
if (IDLE > 0) await new Promise((resolve) => setTimeout(resolve, IDLE * 1000));

/** What the log gained from byte `from` on (the log before it, with every access line, is not read again). */
function logSince(from) {
  const bytes = Buffer.alloc(statSync(logFile).size - from);
  const fd = openSync(logFile, 'r');
  try {
    for (let at = 0; at < bytes.length; ) at += readSync(fd, bytes, at, bytes.length - at, from + at) || bytes.length;
  } finally {
    closeSync(fd);
  }
  return bytes.toString('latin1');
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Counts of `--trace-gc` lines, or of `--trace-gc-nvp` lines (which also say what each scavenge promoted). */
function collections(text) {
  const out = { scavenges: 0, markCompacts: 0, longest: 0, total: 0, promoted: [] };
  const count = (kind, pause) => {
    if (kind === 'mark-compact') out.markCompacts++;
    else out.scavenges++;
    out.longest = Math.max(out.longest, pause);
    out.total += pause;
  };
  for (const m of text.matchAll(/ms: (Scavenge|Mark-Compact|Minor Mark-Sweep)\b[^,]*, ([0-9.]+) \/ [0-9.]+ ms/g)) count(m[1] === 'Mark-Compact' ? 'mark-compact' : 'scavenge', Number(m[2]));
  for (const m of text.matchAll(/ pause=([0-9.]+) .*? gc=(s|ms|mc) .*? promoted=(\d+) /g)) {
    count(m[2] === 'mc' ? 'mark-compact' : 'scavenge', Number(m[1]));
    if (m[2] !== 'mc') out.promoted.push(Number(m[3]));
  }
  return out;
}

for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? [['portico', viaPortico], ['bare', viaBare]] : [['bare', viaBare], ['portico', viaPortico]];
  for (const [name, url] of order) {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const logFrom = statSync(logFile).size;
    const cpuFrom = treeCpuUs(daemon.pid);
    const run = await startWrk(url, { ...load, seconds: 10, script: join(HERE, 'fixed-rate.lua'), scriptArgs: [RATE] }).done;
    let gc = '';
    if (name === 'portico') {
      const text = logSince(logFrom);
      const c = collections(text);
      gc = `  gc: ${c.scavenges} scavenges, ${c.markCompacts} mark-compacts, longest pause ${c.longest.toFixed(1)} ms, ${c.total.toFixed(0)} ms in all${c.promoted.length > 0 ? `, a scavenge promoted ${(median(c.promoted) / 1024).toFixed(0)} KiB (median)` : ''}; cpu ${((treeCpuUs(daemon.pid) - cpuFrom) / (run.rps * 10)).toFixed(0)} µs/req`;
      if (SHOW) for (const line of text.split('\n')) if (SHOW.test(line)) console.log(`    ${line}`);
    }
    console.log(`round ${round + 1} ${name.padEnd(8)} ${run.rps.toFixed(0)} req/s  p50 ${run.p50}  p99 ${run.p99}${gc}`);
  }
}
console.log(`daemon folder (log in log/portico.log): ${dir}`);
process.exit(0);
