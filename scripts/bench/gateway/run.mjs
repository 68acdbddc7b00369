// Gateway benchmark, one run on loopback (docs/gateway.md "Performance"):
//   1. the same backend (nginx serving an 858-byte JSON file) loaded directly, through a bare
//      Node http + undici Pool proxy (bare-proxy.mjs), through an nginx reverse proxy, through
//      the bare proxy as two processes on one port (a reference row only: what a Node proxy gets
//      from both cores, to put the nginx target in proportion) and through Portico (a plain proxy route, access lines on; a second daemon with them off),
//      with wrk at fixed concurrency: req/s, p50/p99, and the CPU time the proxying process spent
//      per request (all its threads, and its main thread alone: at saturation a Node proxy's main
//      thread is busy all the time, so its rate follows that figure);
//   2. the same route open and behind an RS256 jwt;
//   Steps 1 and 2 run in BENCH_ROUNDS rounds, each target once per round, one after the other:
//   a machine whose speed drifts (shared cores) moves targets of one round together, so each
//   ratio is taken within a round and the median over the rounds is the one judged;
//   3. p99 at a fixed rate, half of Portico's peak (access lines on), for Portico and for the
//      bare proxy at that same rate (wrk paced by fixed-rate.lua), alternating, in rounds;
//   4. reload latency: 100 saves of the config file, each timed from the write to the first
//      response carrying the new configuration's header (p50/p99);
//   5. failed requests while 100 reloads happen under wrk load (must be 0).
// Then each target as a ratio against its reference from this same run, met or not met.
// Needs a build (npm run build), nginx and wrk (apt-get install -y nginx wrk). BENCH_PORTICO
// names another build's bin/portico.js (a copy of daemon/ from before a change) to measure it.
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=32 BENCH_THREADS=1 BENCH_ROUNDS=3 BENCH_RELOADS=100 node scripts/bench/gateway/run.mjs
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_NODE_FLAGS } from '../../daemon-node-flags.mjs';
import { cpuUs, freePort, mainThreadCpuUs, need, nginxConf, startNginx, startWrk, verdict, waitFor } from '../lib.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const RELOADS = Number(process.env.BENCH_RELOADS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PATH = '/bench/item.json';
const PORTICO = process.env.BENCH_PORTICO ?? join(ROOT, 'daemon/bin/portico.js');
/** The daemon's Node flags as `npm start` and the service file give them; BENCH_NODE_FLAGS="" measures without. */
const NODE_FLAGS = process.env.BENCH_NODE_FLAGS === undefined ? DAEMON_NODE_FLAGS : process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean);
/** Seconds of load on each Node proxy before measuring (the JIT compiles the hot path first). */
const WARMUP_SECONDS = 3;
/** Pause before each measured run of a round. */
const SETTLE_MS = 1500;

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

/**
 * The Portico config under test. `/**` is a plain proxy route (what the throughput rows
 * measure); `/rev/**` carries `revision` in a response header so a reload is observable;
 * `/open/**` and `/jwt/**` are the same anonymous-backend route without and with an RS256 jwt.
 */
function porticoConfig(port, backendPort, revision, accessLines) {
  return `server "bench" {
  hosts = ["127.0.0.1:${port}"]
  endpoint "/**" {
    proxy {
      backend = "origin"
    }
  }
  endpoint "/rev/**" {
    set_response_headers = { x-config-revision = "${revision}" }
    proxy {
      backend {
        origin = "http://127.0.0.1:${backendPort}"
        path   = "/**"
      }
    }
  }
  endpoint "/open/**" {
    proxy {
      backend {
        origin = "http://127.0.0.1:${backendPort}"
        path   = "/**"
      }
    }
  }
  endpoint "/jwt/**" {
    access_control = ["bench_jwt"]
    proxy {
      backend {
        origin = "http://127.0.0.1:${backendPort}"
        path   = "/**"
      }
    }
  }
}
definitions {
  backend "origin" {
    origin = "http://127.0.0.1:${backendPort}"
  }
  jwt "bench_jwt" {
    signature_algorithm = "RS256"
    key_file            = "jwt-public.pem"
  }
}
settings {
  // "info" writes an access line and a backend line per request (to the log file); "warn" only warnings and errors.
  log_level = "${accessLines ? 'info' : 'warn'}"
}
`;
}

need('nginx');
need('wrk');
const dir = mkdtempSync(join(tmpdir(), 'portico-bench-gateway-'));
chmodSync(dir, 0o755);
const children = [];
const cleanup = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
process.on('exit', cleanup);

function runNginx(base) {
  const child = startNginx(base);
  children.push(child);
  return child;
}

/** A reading of one process, or added up over several (the 2-process bare proxy's workers). */
const sumOver = (pids, read) => [pids].flat().reduce((total, pid) => total + read(pid), 0);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const cpuColumn = (r) => (r.cpu === undefined || Number.isNaN(r.cpu) ? '' : `  cpu ${r.cpu.toFixed(0).padStart(4)} µs/req (main thread ${r.mainThread.toFixed(0)})`);
const row = (name, r) => `  ${name.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50.padStart(8)}  p99 ${r.p99.padStart(8)}  errors ${r.non2xx + r.socketErrors}${cpuColumn(r)}`;

try {
  const [backendPort, proxyPort, barePort, bareTwoPort, porticoPort, controlPort, servicesPort, cdsPort, quietPort, ...quietPorts] = await Promise.all(Array.from({ length: 12 }, freePort));
  const www = join(dir, 'www');
  mkdirSync(join(www, 'bench'), { recursive: true });
  const item = JSON.stringify({ id: 1, items: Array.from({ length: 20 }, (_, i) => ({ n: i, name: `item number ${i}`, ok: true })) });
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
  const env = {
    ...process.env,
    PORTICO_DATA_DIR: join(dir, 'data'),
    PORTICO_CONTROL_ADDR: `127.0.0.1:${controlPort}`,
    PORTICO_SERVICES_ADDR: `127.0.0.1:${servicesPort}`,
    PORTICO_CDS_ADDR: `127.0.0.1:${cdsPort}`,
    PORTICO_LOG_LEVEL: 'warn',
  };
  // Access and backend lines go to a file, as under a service manager that writes stdout to a log.
  // Not beside the config: the config watcher would see every log write.
  mkdirSync(join(dir, 'log'));
  const logFile = join(dir, 'log/portico.log');
  const logFd = openSync(logFile, 'w');
  const daemon = spawn(process.execPath, [...NODE_FLAGS, PORTICO, 'daemon', '--mode', 'gateway', '-f', configFile], { cwd: ROOT, env, stdio: ['ignore', logFd, 'inherit'] });
  closeSync(logFd);
  children.push(daemon);
  const [quietControl, quietServices, quietCds] = quietPorts;
  const quietEnv = { ...env, PORTICO_DATA_DIR: join(dir, 'data-quiet'), PORTICO_CONTROL_ADDR: `127.0.0.1:${quietControl}`, PORTICO_SERVICES_ADDR: `127.0.0.1:${quietServices}`, PORTICO_CDS_ADDR: `127.0.0.1:${quietCds}` };
  const quietDaemon = spawn(process.execPath, [...NODE_FLAGS, PORTICO, 'daemon', '--mode', 'gateway', '-f', quietConfig], { cwd: ROOT, env: quietEnv, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(quietDaemon);

  const direct = `http://127.0.0.1:${backendPort}${PATH}`;
  const viaBare = `http://127.0.0.1:${barePort}${PATH}`;
  const viaBareTwo = `http://127.0.0.1:${bareTwoPort}${PATH}`;
  const viaPortico = `http://127.0.0.1:${porticoPort}${PATH}`;
  const viaQuiet = `http://127.0.0.1:${quietPort}${PATH}`;
  const viaRevision = `http://127.0.0.1:${porticoPort}/rev${PATH}`;
  const viaNginx = `http://127.0.0.1:${proxyPort}${PATH}`;
  const viaJwt = `http://127.0.0.1:${porticoPort}/jwt${PATH}`;
  const viaOpen = `http://127.0.0.1:${porticoPort}/open${PATH}`;
  const bearer = { Authorization: `Bearer ${token}` };
  await waitFor(async () => (await fetch(direct)).ok, 'backend nginx');
  await waitFor(async () => (await fetch(viaNginx)).ok, 'proxy nginx');
  await waitFor(async () => (await fetch(viaBare)).ok, 'bare proxy');
  await waitFor(async () => (await fetch(viaBareTwo)).ok, 'bare proxy, 2 processes');
  await waitFor(async () => (await fetch(viaPortico)).ok, 'portico');
  await waitFor(async () => (await fetch(viaQuiet)).ok, 'portico (access lines off)');
  for (const [name, url] of [['Portico', viaPortico], ['the bare proxy', viaBare], ['the revision route', viaRevision]]) {
    if ((await (await fetch(url)).text()) !== item) throw new Error(`bench: ${name} answered a different body than the backend`);
  }
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

  for (const url of [viaBare, viaBareTwo, viaPortico, viaQuiet, viaOpen]) await startWrk(url, { ...wrkOptions, seconds: WARMUP_SECONDS }).done;
  await startWrk(viaJwt, { ...wrkOptions, seconds: WARMUP_SECONDS, headers: bearer }).done;

  const [load1] = loadavg();
  console.log(`gateway benchmark: ${Buffer.byteLength(item)}-byte JSON from nginx, wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s on loopback, ${cpus().length} cores, 1-minute load ${load1.toFixed(2)} at the start; ${ROUNDS} rounds`);
  const directRun = await wrk(direct);
  console.log(row('backend directly (once)', directRun));
  // Each round runs every target once, back to back; ratios are taken within a round.
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
    ['open', 'Portico, no access control', viaOpen, {}, daemon.pid],
    ['jwt', 'Portico, jwt RS256', viaJwt, bearer, daemon.pid],
  ];
  const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const rounds = [];
  let logBytes = 0;
  let loggedRequests = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const round = {};
    for (const [key, , url, headers, pid] of targets) {
      // A proxy that was just loaded may still collect its garbage: not during the next one's run.
      await settle();
      const logBefore = key === 'portico' ? statSync(logFile).size : 0;
      const cpuBefore = sumOver(pid, cpuUs);
      const mainBefore = sumOver(pid, mainThreadCpuUs);
      round[key] = await wrk(url, headers);
      round[key].cpu = (sumOver(pid, cpuUs) - cpuBefore) / round[key].requests;
      round[key].mainThread = (sumOver(pid, mainThreadCpuUs) - mainBefore) / round[key].requests;
      if (key === 'portico') {
        logBytes += statSync(logFile).size - logBefore;
        loggedRequests += round[key].requests;
      }
    }
    rounds.push(round);
    console.log(`  round ${r + 1}: ${targets.map(([key]) => `${key} ${round[key].rps.toFixed(0)}`).join(', ')} req/s`);
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
  console.log(`    (${(logBytes / Math.max(1, loggedRequests)).toFixed(0)} log bytes per request written to ${logFile.replace(dir, '<tmp>')})`);

  // Latency below saturation: the same fixed rate, half of Portico's peak, through both proxies, alternating.
  const rate = Math.round(median(rounds.map((round) => round.portico.rps)) / 2);
  const pacedRounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    await settle();
    const portico = await wrkAtRate(viaPortico, rate);
    await settle();
    pacedRounds.push({ portico, bare: await wrkAtRate(viaBare, rate) });
  }
  const pacedMedian = (key) => median(pacedRounds.map((round) => round[key].p99Ms));
  console.log(`at a fixed ${rate} req/s (half of Portico's median peak with access lines on; wrk paced by fixed-rate.lua), p99 of each round:`);
  console.log(`  through Portico, access lines on       ${pacedRounds.map((round) => round.portico.p99).join('  ')}  (p50 ${pacedRounds.map((round) => round.portico.p50).join(' ')})`);
  console.log(`  through the bare undici proxy          ${pacedRounds.map((round) => round.bare.p99).join('  ')}  (p50 ${pacedRounds.map((round) => round.bare.p50).join(' ')})`);

  const idle = [];
  for (let i = 0; i < RELOADS; i++) idle.push(await saveAndObserve());
  idle.sort((a, b) => a - b);
  const reloadP99 = percentile(idle, 99);
  console.log(`reload latency (save → new config serving), ${RELOADS} saves: p50 ${percentile(idle, 50).toFixed(1)} ms  p99 ${reloadP99.toFixed(1)} ms  max ${idle.at(-1).toFixed(1)} ms`);

  // Reloads under load: wrk runs for the whole sequence; every request must succeed.
  const load = wrkInBackground(viaPortico);
  const loadStarted = performance.now();
  await new Promise((r) => setTimeout(r, 500));
  const busy = [];
  for (let i = 0; i < RELOADS; i++) busy.push(await saveAndObserve());
  await new Promise((r) => setTimeout(r, 500));
  const underLoad = await load.stop();
  const loadSeconds = ((performance.now() - loadStarted) / 1000).toFixed(1);
  busy.sort((a, b) => a - b);
  const failed = underLoad.non2xx + underLoad.socketErrors;
  console.log(`${RELOADS} reloads under load (wrk -c${CONNECTIONS}, ${loadSeconds}s): ${underLoad.requests} requests, ${failed} failed (non-2xx ${underLoad.non2xx}, socket errors ${underLoad.socketErrors}); reload latency under load p50 ${percentile(busy, 50).toFixed(1)} ms  p99 ${percentile(busy, 99).toFixed(1)} ms`);

  console.log('targets (issue 15), each against its reference in this run (ratios: the median of the rounds, each round in brackets):');
  console.log(`${verdict('Portico (access lines on) / bare undici proxy', ratio('portico', 'bare'), TARGETS.bare)}  [${ratios('portico', 'bare')}]`);
  console.log(`${verdict('Portico (access lines on) / nginx proxy', ratio('portico', 'nginx'), TARGETS.nginx)}  [${ratios('portico', 'nginx')}]`);
  const held = pacedRounds.every((round) => round.portico.rps >= 0.95 * rate && round.bare.rps >= 0.95 * rate);
  const paced = held ? '' : ` (rate not held in every round: Portico ${pacedRounds.map((round) => round.portico.rps.toFixed(0)).join(' ')}, bare ${pacedRounds.map((round) => round.bare.rps.toFixed(0)).join(' ')} req/s)`;
  console.log(`${verdict(`p99 at ${rate} req/s (median of rounds), Portico ${pacedMedian('portico').toFixed(2)} ms vs bare proxy ${pacedMedian('bare').toFixed(2)} ms + ${TARGETS.p99SlackMs} ms`, pacedMedian('portico'), pacedMedian('bare') + TARGETS.p99SlackMs, { atMost: true, unit: 'ms' })}${paced}`);
  console.log(`${verdict('Portico jwt RS256 / no access control', ratio('jwt', 'open'), TARGETS.jwt)}  [${ratios('jwt', 'open')}]`);
  console.log(verdict(`reload p99 over ${RELOADS} saves`, reloadP99, TARGETS.reloadP99Ms, { atMost: true, unit: 'ms' }));
  console.log(verdict(`failed requests over ${RELOADS} reloads under load`, failed, 0, { atMost: true, unit: 'requests' }));
  console.log(`  (for reference, medians: Portico access lines off / bare ${ratio('quiet', 'bare').toFixed(3)}, / nginx ${ratio('quiet', 'nginx').toFixed(3)}; access lines on / off ${ratio('portico', 'quiet').toFixed(3)}; bare / nginx ${ratio('bare', 'nginx').toFixed(3)}, bare as 2 processes / nginx ${ratio('bare2', 'nginx').toFixed(3)}; Portico access lines on / directly (first run) ${(medianRun('portico').rps / directRun.rps).toFixed(3)})`);
  if (failed > 0) process.exitCode = 1;
} finally {
  cleanup();
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}
