// Gateway benchmark, one run on loopback (docs/gateway.md "Performance"):
//   1. the same backend (nginx serving an 858-byte JSON file) loaded directly, through a bare
//      Node http + undici Pool proxy (bare-proxy.mjs), through an nginx reverse proxy, through
//      the bare proxy as two processes on one port (a reference row only: what a Node proxy gets
//      from both cores, to put the nginx target in proportion) and through Portico (a plain proxy
//      route, access lines on; a second daemon with them off; a third with access lines on and
//      PORTICO_GATEWAY_PROCESSES=2, two gateway processes forked by the daemon sharing the port),
//      with wrk at fixed concurrency: req/s, p50/p99, and the CPU time the proxying process spent
//      per request (all its threads, and its main thread alone: at saturation a Node proxy's main
//      thread is busy all the time, so its rate follows that figure; for the 2-process bare proxy
//      and the 2-process daemon, added up over the primary and the processes it forked);
//   2. the same route open, behind an RS256 jwt, and with a response header from an expression;
//   Steps 1 and 2 run in BENCH_ROUNDS rounds, each target once per round, one after the other:
//   a machine whose speed drifts (shared cores) moves targets of one round together, so each
//   ratio is taken within a round and the median over the rounds is the one judged;
//   3. p99 at a fixed rate, half of Portico's peak (access lines on), for Portico and for the
//      bare proxy at that same rate (wrk paced by fixed-rate.lua), alternating, in BENCH_PACED_ROUNDS
//      rounds (Portico first in odd rounds, the bare proxy first in even ones); then
//      the same for the 2-process setup: half of the 2-process Portico's peak, through it and
//      through the 2-process bare proxy;
//   4. reload latency: 100 saves of the config file, each timed from the write to the first
//      response carrying the new configuration's header (p50/p99);
//   5. failed requests while 100 reloads happen under wrk load (must be 0);
//   then 4 and 5 again for the 2-process daemon, polled over a new connection each time (round
//   robin hands each to the next gateway process): a save is serving once 2 such responses in a
//   row carry the new header, so both processes answer with it.
// Then each target as a ratio against its reference from this same run, met or not met; the
// throughput targets for the 1-process daemon and again for the 2-process one (against the same
// 1-process bare proxy and nginx), with the 2-process Portico / 2-process bare proxy ratio beside
// them for information. A build that ignores PORTICO_GATEWAY_PROCESSES serves with one process:
// the run then says that its 2-process daemon forked no gateway processes.
// Needs a build (npm run build), nginx and wrk (apt-get install -y nginx wrk). BENCH_PORTICO
// names another build's bin/portico.js (a copy of daemon/ from before a change) to measure it.
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=32 BENCH_THREADS=1 BENCH_ROUNDS=3 BENCH_PACED_ROUNDS=5 BENCH_RELOADS=100 BENCH_WARMUP=3 node scripts/bench/gateway/run.mjs
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuUs, daemonEnv, freePort, mainThreadCpuUs, need, nginxConf, nodeFlags, startNginx, startWrk, verdict, waitFor } from '../lib.mjs';
import { BENCH_ITEM, porticoConfig } from './portico-config.mjs';
import { descendants, running, treeCpuUs, treeMainThreadCpuUs } from './process-tree.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const RELOADS = Number(process.env.BENCH_RELOADS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * Paced pairs per setup: a p99 over 10 s moves by several times between pairs on a shared machine
 * (a stall of the machine lands on one run), against a 1-ms allowance; with five, one or two such
 * pairs do not decide the median.
 */
const PACED_ROUNDS = Number(process.env.BENCH_PACED_ROUNDS ?? 5);
const PATH = '/bench/item.json';
const PORTICO = process.env.BENCH_PORTICO ?? join(ROOT, 'daemon/bin/portico.js');
/** The daemon's Node flags as `npm start` and the service file give them; BENCH_NODE_FLAGS="" measures without. */
const NODE_FLAGS = nodeFlags(process.env.BENCH_NODE_FLAGS);
/** Seconds of load on each Node proxy before measuring (the JIT compiles the hot path first). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP ?? 3);
/** Pause before each measured run of a round. */
const SETTLE_MS = 1500;
/** Gateway processes of the third daemon (PORTICO_GATEWAY_PROCESSES). */
const GATEWAY_PROCESSES = 2;

/** The targets in round `r`'s order: as listed for the first round, then shuffled (seeded by the round). */
function roundOrder(targets, r) {
  if (r === 0) return targets;
  const order = [...targets];
  // mulberry32: a small seeded generator, so every run uses the same orders.
  let seed = r * 0x9e3779b9;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** The targets of issue 15 (gateway and reload). */
const TARGETS = { bare: 1.0, nginx: 0.4, p99SlackMs: 1, jwt: 0.85, reloadP99Ms: 100 };

const wrkOptions = { threads: THREADS, connections: CONNECTIONS };
const wrk = (url, headers) => startWrk(url, { ...wrkOptions, seconds: SECONDS, headers }).done;
/** wrk paced at `rate` requests a second in all (split over the threads). */
const wrkAtRate = (url, rate) => startWrk(url, { ...wrkOptions, seconds: SECONDS, script: join(HERE, 'fixed-rate.lua'), scriptArgs: [Math.max(1, Math.round(rate / THREADS))] }).done;
/** wrk until stop(). */
function wrkInBackground(url) {
  const run = startWrk(url, { ...wrkOptions, seconds: 3600 });
  children.push(run.child);
  return run;
}

need('nginx');
need('wrk');
const dir = mkdtempSync(join(tmpdir(), 'portico-bench-gateway-'));
chmodSync(dir, 0o755);
const children = [];
/** The daemon started with GATEWAY_PROCESSES, once spawned: its gateway processes must end with it. */
let multiDaemon = null;
let stopping = false;
const cleanup = () => {
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
/** Daemons that ended before the run was over, each with why (a crashed build would otherwise show as NaN rows and refused connections). */
const ended = [];
function watchDaemon(child, name, logFile = null) {
  child.on('exit', (code, signal) => {
    if (stopping) return;
    // Its errors are log lines on stdout: the end of the log file says why.
    const tail = logFile === null ? '' : `; the end of its log:\n${logTail(logFile)}`;
    ended.push(`${name} ended during the run (${signal === null ? `exit code ${code}` : signal})${tail}`);
  });
}
/** The last lines of a log file, read from its last 2 KiB (a full run's access lines make it large). */
function logTail(file) {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, 2048));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString('utf8').trimEnd().split('\n').slice(-3).join('\n');
  } finally {
    closeSync(fd);
  }
}
/** Stops the run when a daemon has ended (the finally block says which and why). */
function assertDaemonsRunning() {
  if (ended.length > 0) throw new Error('bench: a Portico daemon ended during the run');
}
process.on('exit', cleanup);

function runNginx(base) {
  const child = startNginx(base);
  children.push(child);
  return child;
}

/** A reading of one process, or added up over several (the 2-process bare proxy's workers). */
const sumOver = (pids, read) => [pids].flat().reduce((total, pid) => total + read(pid), 0);
/** A target's CPU readings: of its process(es), or `{ tree: pid }`, a process with all it forked (read at each reading, so a replaced gateway process counts too). */
const cpuReading = (pid) => (pid.tree === undefined ? sumOver(pid, cpuUs) : treeCpuUs(pid.tree));
const mainThreadReading = (pid) => (pid.tree === undefined ? sumOver(pid, mainThreadCpuUs) : treeMainThreadCpuUs(pid.tree));
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
/** The 2-process daemon's row (the longest row name: the name column fits it). */
const MULTI_ROW = `Portico, ${GATEWAY_PROCESSES} gateway processes (access lines on)`;
const cpuColumn = (r) => (r.cpu === undefined || Number.isNaN(r.cpu) ? '' : `  cpu ${r.cpu.toFixed(0).padStart(4)} µs/req (main thread ${r.mainThread.toFixed(0)})`);
const row = (name, r) => `  ${name.padEnd(MULTI_ROW.length)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50.padStart(8)}  p99 ${r.p99.padStart(8)}  errors ${r.non2xx + r.socketErrors}${cpuColumn(r)}`;

try {
  const [backendPort, proxyPort, barePort, bareTwoPort, porticoPort, controlPort, servicesPort, cdsPort, quietPort, multiPort, ...internalPorts] = await Promise.all(Array.from({ length: 16 }, freePort));
  const www = join(dir, 'www');
  mkdirSync(join(www, 'bench'), { recursive: true });
  const item = BENCH_ITEM;
  writeFileSync(join(www, PATH), item);
  runNginx(nginxConf(dir, 'backend', `  server { listen 127.0.0.1:${backendPort}; root ${www}; }`));
  const proxyNginx = runNginx(
    nginxConf(
      dir,
      'proxy',
      `  upstream origin { server 127.0.0.1:${backendPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${proxyPort};
    location / { proxy_pass http://origin; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }`,
    ),
  );
  const bareProxy = spawn(process.execPath, [join(HERE, 'bare-proxy.mjs'), String(barePort), `http://127.0.0.1:${backendPort}`], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(bareProxy);
  // For reference against nginx: the same bare proxy as two processes on one port (not a target).
  const bareTwo = spawn(process.execPath, [join(HERE, 'bare-proxy.mjs'), String(bareTwoPort), `http://127.0.0.1:${backendPort}`, '2'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(bareTwo);

  const { generateKeyPairSync } = await import('node:crypto');
  const { SignJWT } = await import('jose');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'jwt-public.pem'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
  const token = await new SignJWT({ sub: 'bench' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('2h').sign(rsa.privateKey);
  const configFile = join(dir, 'portico.hcl');
  let revision = 0;
  const accessLines = true;
  writeFileSync(configFile, porticoConfig(porticoPort, backendPort, revision, accessLines));
  // The same routes with access lines off, in a daemon of its own, so both are measured in every round.
  const quietConfig = join(dir, 'portico-quiet.hcl');
  writeFileSync(quietConfig, porticoConfig(quietPort, backendPort, 0, false));
  // And with access lines on in a daemon serving with GATEWAY_PROCESSES processes.
  const multiConfig = join(dir, 'portico-multi.hcl');
  writeFileSync(multiConfig, porticoConfig(multiPort, backendPort, 0, true));
  // The first two daemons serve with one process, whatever the shell running the benchmark sets.
  const env = daemonEnv(join(dir, 'data'), { control: controlPort, services: servicesPort, cds: cdsPort }, { PORTICO_GATEWAY_PROCESSES: '1' });
  // Access and backend lines go to a file, as under a service manager that writes stdout to a log.
  // Not beside the config: the config watcher would see every log write.
  mkdirSync(join(dir, 'log'));
  const logFile = join(dir, 'log/portico.log');
  const logFd = openSync(logFile, 'w');
  const daemon = spawn(process.execPath, [...NODE_FLAGS, PORTICO, 'daemon', '--mode', 'gateway', '-f', configFile], { cwd: ROOT, env, stdio: ['ignore', logFd, 'inherit'] });
  closeSync(logFd);
  children.push(daemon);
  watchDaemon(daemon, 'Portico (access lines on)', logFile);
  const [quietControl, quietServices, quietCds, multiControl, multiServices, multiCds] = internalPorts;
  const quietEnv = daemonEnv(join(dir, 'data-quiet'), { control: quietControl, services: quietServices, cds: quietCds }, { PORTICO_GATEWAY_PROCESSES: '1' });
  const quietDaemon = spawn(process.execPath, [...NODE_FLAGS, PORTICO, 'daemon', '--mode', 'gateway', '-f', quietConfig], { cwd: ROOT, env: quietEnv, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(quietDaemon);
  watchDaemon(quietDaemon, 'Portico (access lines off)');
  const multiEnv = daemonEnv(join(dir, 'data-multi'), { control: multiControl, services: multiServices, cds: multiCds }, { PORTICO_GATEWAY_PROCESSES: String(GATEWAY_PROCESSES) });
  const multiLogFile = join(dir, 'log/portico-multi.log');
  const multiLogFd = openSync(multiLogFile, 'w');
  multiDaemon = spawn(process.execPath, [...NODE_FLAGS, PORTICO, 'daemon', '--mode', 'gateway', '-f', multiConfig], { cwd: ROOT, env: multiEnv, stdio: ['ignore', multiLogFd, 'inherit'] });
  closeSync(multiLogFd);
  children.push(multiDaemon);
  watchDaemon(multiDaemon, `Portico (${GATEWAY_PROCESSES} gateway processes)`, multiLogFile);

  const direct = `http://127.0.0.1:${backendPort}${PATH}`;
  const viaBare = `http://127.0.0.1:${barePort}${PATH}`;
  const viaBareTwo = `http://127.0.0.1:${bareTwoPort}${PATH}`;
  const viaPortico = `http://127.0.0.1:${porticoPort}${PATH}`;
  const viaQuiet = `http://127.0.0.1:${quietPort}${PATH}`;
  const viaMulti = `http://127.0.0.1:${multiPort}${PATH}`;
  const viaRevision = `http://127.0.0.1:${porticoPort}/rev${PATH}`;
  const viaMultiRevision = `http://127.0.0.1:${multiPort}/rev${PATH}`;
  const viaNginx = `http://127.0.0.1:${proxyPort}${PATH}`;
  const viaJwt = `http://127.0.0.1:${porticoPort}/jwt${PATH}`;
  const viaOpen = `http://127.0.0.1:${porticoPort}/open${PATH}`;
  const viaExpr = `http://127.0.0.1:${porticoPort}/expr${PATH}`;
  const bearer = { Authorization: `Bearer ${token}` };
  await waitFor(async () => (await fetch(direct)).ok, 'backend nginx');
  await waitFor(async () => (await fetch(viaNginx)).ok, 'proxy nginx');
  await waitFor(async () => (await fetch(viaBare)).ok, 'bare proxy');
  await waitFor(async () => (await fetch(viaBareTwo)).ok, 'bare proxy, 2 processes');
  await waitFor(async () => (await fetch(viaPortico)).ok, 'portico');
  await waitFor(async () => (await fetch(viaQuiet)).ok, 'portico (access lines off)');
  await waitFor(async () => (await fetch(viaMulti)).ok, `portico (${GATEWAY_PROCESSES} gateway processes)`);
  for (const [name, url] of [['Portico', viaPortico], ['the bare proxy', viaBare], ['the revision route', viaRevision], [`Portico with ${GATEWAY_PROCESSES} gateway processes`, viaMulti]]) {
    if ((await (await fetch(url)).text()) !== item) throw new Error(`bench: ${name} answered a different body than the backend`);
  }
  if (!(await fetch(viaExpr)).headers.get('x-request')) throw new Error('bench: the expression route answered without its x-request header');
  if ((await fetch(viaJwt)).status !== 401) throw new Error('bench: the jwt route answered without a token');
  if ((await (await fetch(viaJwt, { headers: bearer })).text()) !== item) throw new Error('bench: the jwt route answered a different body');

  // Save, then poll until the new revision answers.
  async function saveAndObserve() {
    revision += 1;
    const wanted = String(revision);
    const started = performance.now();
    writeFileSync(configFile, porticoConfig(porticoPort, backendPort, revision, accessLines));
    for (;;) {
      const res = await fetch(viaRevision);
      await res.arrayBuffer();
      if (res.headers.get('x-config-revision') === wanted) return performance.now() - started;
      if (performance.now() - started > 10_000) throw new Error(`bench: revision ${wanted} not serving 10 s after the save`);
    }
  }

  // The same for the 2-process daemon: GATEWAY_PROCESSES new connections in a row reach every gateway process.
  let multiRevision = 0;
  async function saveAndObserveMulti() {
    multiRevision += 1;
    const wanted = String(multiRevision);
    const started = performance.now();
    writeFileSync(multiConfig, porticoConfig(multiPort, backendPort, multiRevision, accessLines));
    for (let inARow = 0; ; ) {
      inARow = (await revisionOverNewConnection(viaMultiRevision)) === wanted ? inARow + 1 : 0;
      if (inARow === GATEWAY_PROCESSES) return performance.now() - started;
      if (performance.now() - started > 10_000) throw new Error(`bench: revision ${wanted} not serving in all ${GATEWAY_PROCESSES} gateway processes 10 s after the save`);
    }
  }

  for (const url of [viaBare, viaBareTwo, viaPortico, viaQuiet, viaMulti, viaOpen, viaExpr]) await startWrk(url, { ...wrkOptions, seconds: WARMUP_SECONDS }).done;
  await startWrk(viaJwt, { ...wrkOptions, seconds: WARMUP_SECONDS, headers: bearer }).done;

  assertDaemonsRunning();
  const [load1] = loadavg();
  console.log(`gateway benchmark: ${Buffer.byteLength(item)}-byte JSON from nginx, wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s on loopback, ${cpus().length} cores, 1-minute load ${load1.toFixed(2)} at the start; ${ROUNDS} rounds, ${PACED_ROUNDS} paced pairs a setup`);
  // Warmed up: its gateway processes have all started by now.
  const multiProcesses = descendants(multiDaemon.pid);
  const multiNote =
    multiProcesses.length === GATEWAY_PROCESSES
      ? null
      : `note: the daemon started with PORTICO_GATEWAY_PROCESSES=${GATEWAY_PROCESSES} has ${multiProcesses.length} child processes${multiProcesses.length === 0 ? ' (this build serves with one process)' : ''}: its rows measure that, not ${GATEWAY_PROCESSES} gateway processes`;
  if (multiNote !== null) console.log(multiNote);
  const directRun = await wrk(direct);
  console.log(row('backend directly (once)', directRun));
  // Each round runs every target once, back to back; ratios are taken within a round. The first
  // round runs them in the order below, each later one in its own shuffled order (the same for
  // every run): on these machines the speed drifts with time, and in a fixed order whatever
  // comes after a given target (say, a 2-process run that used both cores) would land on the
  // same target in every round; shuffled, it lands on different ones and the median sees it as noise.
  // The process that proxies (nginx: its one worker), for the CPU it spent per request.
  const nginxWorker = Number(execFileSync('pgrep', ['-P', String(proxyNginx.pid)], { encoding: 'utf8' }).trim().split('\n')[0]);
  // Its workers (the primary only forwards connections); their CPU is added up.
  const bareTwoWorkers = execFileSync('pgrep', ['-P', String(bareTwo.pid)], { encoding: 'utf8' }).trim().split('\n').map(Number);
  const targets = [
    ['bare', 'through the bare undici proxy', viaBare, {}, bareProxy.pid],
    ['nginx', 'through nginx proxy', viaNginx, {}, nginxWorker],
    ['bare2', 'bare proxy, 2 processes', viaBareTwo, {}, bareTwoWorkers],
    ['portico', 'through Portico, access lines on', viaPortico, {}, daemon.pid],
    ['quiet', 'through Portico, access lines off', viaQuiet, {}, quietDaemon.pid],
    ['portico2', MULTI_ROW, viaMulti, {}, { tree: multiDaemon.pid }],
    ['open', 'Portico, no access control', viaOpen, {}, daemon.pid],
    ['jwt', 'Portico, jwt RS256', viaJwt, bearer, daemon.pid],
    ['expr', 'Portico, a response header from request.id', viaExpr, {}, daemon.pid],
  ];
  const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const rounds = [];
  // Bytes written to each access-lines-on daemon's log, and the requests they were written for.
  const logs = { portico: { file: logFile, bytes: 0, requests: 0 }, portico2: { file: multiLogFile, bytes: 0, requests: 0 } };
  for (let r = 0; r < ROUNDS; r++) {
    const round = {};
    const order = roundOrder(targets, r);
    for (const [key, , url, headers, pid] of order) {
      // A proxy that was just loaded may still collect its garbage: not during the next one's run.
      await settle();
      assertDaemonsRunning();
      const log = logs[key];
      const logBefore = log === undefined ? 0 : statSync(log.file).size;
      const cpuBefore = cpuReading(pid);
      const mainBefore = mainThreadReading(pid);
      round[key] = await wrk(url, headers);
      round[key].cpu = (cpuReading(pid) - cpuBefore) / round[key].requests;
      round[key].mainThread = (mainThreadReading(pid) - mainBefore) / round[key].requests;
      if (log !== undefined) {
        log.bytes += statSync(log.file).size - logBefore;
        log.requests += round[key].requests;
      }
    }
    rounds.push(round);
    console.log(`  round ${r + 1}: ${order.map(([key]) => `${key} ${round[key].rps.toFixed(0)}`).join(', ')} req/s`);
  }
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  };
  /** The round whose `key` rate is the median, for its p50/p99 (rows show one real run, not a mix). */
  const medianRun = (key) => {
    const byRate = rounds.map((round) => round[key]).sort((a, b) => a.rps - b.rps);
    return byRate[Math.floor((byRate.length - 1) / 2)];
  };
  const ratio = (a, b) => median(rounds.map((round) => round[a].rps / round[b].rps));
  const ratios = (a, b) => rounds.map((round) => (round[a].rps / round[b].rps).toFixed(3)).join(' ');
  console.log(`median of the ${ROUNDS} rounds (p50/p99 of the median round):`);
  for (const [key, name] of targets) console.log(row(name, medianRun(key)));
  for (const { file, bytes, requests } of Object.values(logs)) console.log(`    (${(bytes / Math.max(1, requests)).toFixed(0)} log bytes per request written to ${file.replace(dir, '<tmp>')})`);

  // Latency below saturation: the same fixed rate, half of a Portico's peak, through it and a bare
  // proxy, alternating; which of the two goes first alternates too (Portico in the first round),
  // so a drift of the machine within a pair does not always land on the same one.
  async function pacedPairs(rate, porticoUrl, bareUrl) {
    const pairs = [];
    for (let r = 0; r < PACED_ROUNDS; r++) {
      const pair = {};
      for (const key of r % 2 === 0 ? ['portico', 'bare'] : ['bare', 'portico']) {
        await settle();
        pair[key] = await wrkAtRate(key === 'portico' ? porticoUrl : bareUrl, rate);
      }
      pairs.push(pair);
    }
    return pairs;
  }
  const pacedMedian = (pairs, key) => median(pairs.map((round) => round[key].p99Ms));
  const pacedRow = (name, pairs, key) => `  ${name.padEnd(38)} ${pairs.map((round) => round[key].p99).join('  ')}  (p50 ${pairs.map((round) => round[key].p50).join(' ')})`;
  assertDaemonsRunning();
  const rate = Math.round(median(rounds.map((round) => round.portico.rps)) / 2);
  const pacedRounds = await pacedPairs(rate, viaPortico, viaBare);
  console.log(`at a fixed ${rate} req/s (half of Portico's median peak with access lines on; wrk paced by fixed-rate.lua), p99 of each round:`);
  console.log(pacedRow('through Portico, access lines on', pacedRounds, 'portico'));
  console.log(pacedRow('through the bare undici proxy', pacedRounds, 'bare'));
  const multiRate = Math.round(median(rounds.map((round) => round.portico2.rps)) / 2);
  const multiPacedRounds = await pacedPairs(multiRate, viaMulti, viaBareTwo);
  console.log(`at a fixed ${multiRate} req/s (half of the ${GATEWAY_PROCESSES}-process Portico's median peak with access lines on), p99 of each round:`);
  console.log(pacedRow(`through Portico, ${GATEWAY_PROCESSES} gateway processes`, multiPacedRounds, 'portico'));
  console.log(pacedRow('through the bare proxy, 2 processes', multiPacedRounds, 'bare'));

  /** RELOADS saves one after the other: each one's latency in ms, sorted; `slowest` is the 1-based number of the slowest save. */
  async function reloadLatencies(save) {
    const latencies = [];
    for (let i = 0; i < RELOADS; i++) latencies.push(await save());
    const slowest = latencies.indexOf(Math.max(...latencies)) + 1;
    return Object.assign(latencies.sort((a, b) => a - b), { slowest });
  }
  // Reloads under load: wrk runs for the whole sequence; every request must succeed.
  async function reloadsUnderLoad(url, save) {
    const load = wrkInBackground(url);
    const loadStarted = performance.now();
    await new Promise((r) => setTimeout(r, 500));
    const latencies = await reloadLatencies(save);
    await new Promise((r) => setTimeout(r, 500));
    const underLoad = await load.stop();
    const seconds = ((performance.now() - loadStarted) / 1000).toFixed(1);
    return { latencies, underLoad, seconds, failed: underLoad.non2xx + underLoad.socketErrors };
  }
  const underLoadLine = (name, { latencies, underLoad, seconds, failed }) =>
    `${RELOADS} reloads under load${name} (wrk -c${CONNECTIONS}, ${seconds}s): ${underLoad.requests} requests, ${failed} failed (non-2xx ${underLoad.non2xx}, socket errors ${underLoad.socketErrors}); reload latency under load p50 ${percentile(latencies, 50).toFixed(1)} ms  p99 ${percentile(latencies, 99).toFixed(1)} ms`;

  assertDaemonsRunning();
  const idle = await reloadLatencies(saveAndObserve);
  const reloadP99 = percentile(idle, 99);
  console.log(`reload latency (save → new config serving), ${RELOADS} saves: p50 ${percentile(idle, 50).toFixed(1)} ms  p99 ${reloadP99.toFixed(1)} ms  max ${idle.at(-1).toFixed(1)} ms (save ${idle.slowest})`);
  const busy = await reloadsUnderLoad(viaPortico, saveAndObserve);
  const failed = busy.failed;
  console.log(underLoadLine('', busy));

  assertDaemonsRunning();
  const multiIdle = await reloadLatencies(saveAndObserveMulti);
  const multiReloadP99 = percentile(multiIdle, 99);
  console.log(
    `reload latency, ${GATEWAY_PROCESSES} gateway processes (save → new config serving in all, ${GATEWAY_PROCESSES} new connections in a row), ${RELOADS} saves: p50 ${percentile(multiIdle, 50).toFixed(1)} ms  p99 ${multiReloadP99.toFixed(1)} ms  max ${multiIdle.at(-1).toFixed(1)} ms (save ${multiIdle.slowest})`,
  );
  const multiBusy = await reloadsUnderLoad(viaMulti, saveAndObserveMulti);
  const multiFailed = multiBusy.failed;
  console.log(underLoadLine(`, ${GATEWAY_PROCESSES} gateway processes`, multiBusy));

  console.log('targets (issue 15), each against its reference in this run (ratios: the median of the rounds, each round in brackets):');
  console.log(`${verdict('Portico (access lines on) / bare undici proxy', ratio('portico', 'bare'), TARGETS.bare)}  [${ratios('portico', 'bare')}]`);
  console.log(`${verdict(`${MULTI_ROW} / bare undici proxy`, ratio('portico2', 'bare'), TARGETS.bare)}  [${ratios('portico2', 'bare')}]`);
  console.log(`${verdict('Portico (access lines on) / nginx proxy', ratio('portico', 'nginx'), TARGETS.nginx)}  [${ratios('portico', 'nginx')}]`);
  console.log(`${verdict(`${MULTI_ROW} / nginx proxy`, ratio('portico2', 'nginx'), TARGETS.nginx)}  [${ratios('portico2', 'nginx')}]`);
  console.log(`  (same footing, no target: Portico ${GATEWAY_PROCESSES} gateway processes / bare proxy 2 processes ${ratio('portico2', 'bare2').toFixed(3)}  [${ratios('portico2', 'bare2')}]; Portico ${GATEWAY_PROCESSES} gateway processes / 1 process ${ratio('portico2', 'portico').toFixed(3)})`);
  if (multiNote !== null) console.log(`  (${multiNote})`);
  /** The p99 target over paced pairs; `names` say which Portico and bare proxy in the label and, if a rate was not held, in the note. */
  function pacedVerdict(pairs, rate, names) {
    const held = pairs.every((round) => round.portico.rps >= 0.95 * rate && round.bare.rps >= 0.95 * rate);
    const paced = held ? '' : ` (rate not held in every round: ${names.portico} ${pairs.map((round) => round.portico.rps.toFixed(0)).join(' ')}, ${names.bareShort} ${pairs.map((round) => round.bare.rps.toFixed(0)).join(' ')} req/s)`;
    const [portico, bare] = [pacedMedian(pairs, 'portico'), pacedMedian(pairs, 'bare')];
    return `${verdict(`p99 at ${rate} req/s (median of rounds), ${names.portico} ${portico.toFixed(2)} ms vs ${names.bare} ${bare.toFixed(2)} ms + ${TARGETS.p99SlackMs} ms`, portico, bare + TARGETS.p99SlackMs, { atMost: true, unit: 'ms' })}${paced}`;
  }
  console.log(pacedVerdict(pacedRounds, rate, { portico: 'Portico', bare: 'bare proxy', bareShort: 'bare' }));
  const bareTwoName = 'bare proxy with 2 processes';
  console.log(pacedVerdict(multiPacedRounds, multiRate, { portico: `Portico with ${GATEWAY_PROCESSES} gateway processes`, bare: bareTwoName, bareShort: bareTwoName }));
  console.log(`${verdict('Portico jwt RS256 / no access control', ratio('jwt', 'open'), TARGETS.jwt)}  [${ratios('jwt', 'open')}]`);
  console.log(verdict(`reload p99 over ${RELOADS} saves`, reloadP99, TARGETS.reloadP99Ms, { atMost: true, unit: 'ms' }));
  console.log(verdict(`failed requests over ${RELOADS} reloads under load`, failed, 0, { atMost: true, unit: 'requests' }));
  console.log(verdict(`reload p99 over ${RELOADS} saves, ${GATEWAY_PROCESSES} gateway processes`, multiReloadP99, TARGETS.reloadP99Ms, { atMost: true, unit: 'ms' }));
  console.log(verdict(`failed requests over ${RELOADS} reloads under load, ${GATEWAY_PROCESSES} gateway processes`, multiFailed, 0, { atMost: true, unit: 'requests' }));
  console.log(`  (for reference, medians: Portico access lines off / bare ${ratio('quiet', 'bare').toFixed(3)}, / nginx ${ratio('quiet', 'nginx').toFixed(3)}; access lines on / off ${ratio('portico', 'quiet').toFixed(3)}; bare / nginx ${ratio('bare', 'nginx').toFixed(3)}, bare as 2 processes / nginx ${ratio('bare2', 'nginx').toFixed(3)}; a response header from request.id / no access control ${ratio('expr', 'open').toFixed(3)}; Portico access lines on / directly (first run) ${(medianRun('portico').rps / directRun.rps).toFixed(3)})`);
  if (failed > 0 || multiFailed > 0) process.exitCode = 1;
} finally {
  for (const what of ended) console.error(`bench: ${what}`);
  const gatewayProcesses = multiDaemon === null ? [] : descendants(multiDaemon.pid);
  cleanup();
  await new Promise((r) => setTimeout(r, 300));
  await stopLeftovers(gatewayProcesses);
  rmSync(dir, { recursive: true, force: true });
}

/** The revision header of one GET over a connection of its own (agent: false, `connection: close`): round robin gives it to the next gateway process. */
function revisionOverNewConnection(url) {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { agent: false }, (res) => {
      res.on('error', reject);
      res.on('end', () => resolve(res.headers['x-config-revision']));
      res.resume();
    });
    request.on('error', reject);
  });
}

/** Gateway processes still running 2 s after their daemon was stopped are reported, then stopped (they would hold the port). */
async function stopLeftovers(pids) {
  for (const deadline = Date.now() + 2000; pids.some(running) && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 100));
  const left = pids.filter(running);
  if (left.length === 0) return;
  console.error(`bench: ${left.length} gateway process(es) of the ${GATEWAY_PROCESSES}-process daemon still ran 2 s after it was stopped (pids ${left.join(' ')}); stopping them`);
  // They leave SIGTERM to their daemon (a terminal's Ctrl-C reaches every process of the group).
  for (const pid of left) process.kill(pid, 'SIGKILL');
}
