// Gateway benchmark, one run on loopback (docs/gateway.md "Performance"):
//   1. the same backend (nginx serving an 858-byte JSON file) loaded directly, through a bare
//      Node http + undici Pool proxy (bare-proxy.mjs), through an nginx reverse proxy and
//      through Portico (a plain proxy route, access lines off, then on), with wrk at fixed
//      concurrency: req/s, p50/p99;
//   2. the same route open and behind an RS256 jwt;
//   3. p99 at a fixed rate, half of Portico's peak (access lines on), for Portico and for the
//      bare proxy at that same rate (wrk paced by fixed-rate.lua);
//   4. reload latency: 100 saves of the config file, each timed from the write to the first
//      response carrying the new configuration's header (p50/p99);
//   5. failed requests while 100 reloads happen under wrk load (must be 0).
// Then each target as a ratio against its reference from this same run, met or not met.
// Needs a build (npm run build), nginx and wrk (apt-get install -y nginx wrk). BENCH_PORTICO
// names another build's bin/portico.js (a copy of daemon/ from before a change) to measure it.
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=32 BENCH_THREADS=1 BENCH_RELOADS=100 node scripts/bench/gateway/run.mjs
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_NODE_FLAGS } from '../../daemon-node-flags.mjs';
import { freePort, need, nginxConf, startNginx, startWrk, verdict, waitFor } from '../lib.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const RELOADS = Number(process.env.BENCH_RELOADS ?? 100);
const PATH = '/bench/item.json';
const PORTICO = process.env.BENCH_PORTICO ?? join(ROOT, 'daemon/bin/portico.js');
/** The daemon's Node flags as `npm start` and the service file give them; BENCH_NODE_FLAGS="" measures without. */
const NODE_FLAGS = process.env.BENCH_NODE_FLAGS === undefined ? DAEMON_NODE_FLAGS : process.env.BENCH_NODE_FLAGS.split(' ').filter(Boolean);
/** Seconds of load on each Node proxy before measuring (the JIT compiles the hot path first). */
const WARMUP_SECONDS = 3;

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

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const row = (name, r) => `  ${name.padEnd(34)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50.padStart(8)}  p99 ${r.p99.padStart(8)}  errors ${r.non2xx + r.socketErrors}`;

try {
  const [backendPort, proxyPort, barePort, porticoPort, controlPort, servicesPort, cdsPort] = await Promise.all(Array.from({ length: 7 }, freePort));
  const www = join(dir, 'www');
  mkdirSync(join(www, 'bench'), { recursive: true });
  const item = JSON.stringify({ id: 1, items: Array.from({ length: 20 }, (_, i) => ({ n: i, name: `item number ${i}`, ok: true })) });
  writeFileSync(join(www, PATH), item);
  runNginx(nginxConf(dir, 'backend', `  server { listen 127.0.0.1:${backendPort}; root ${www}; }`));
  runNginx(
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
  children.push(spawn(process.execPath, [join(HERE, 'bare-proxy.mjs'), String(barePort), `http://127.0.0.1:${backendPort}`], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] }));

  const { generateKeyPairSync } = await import('node:crypto');
  const { SignJWT } = await import('jose');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'jwt-public.pem'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
  const token = await new SignJWT({ sub: 'bench' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('2h').sign(rsa.privateKey);
  const configFile = join(dir, 'portico.hcl');
  let revision = 0;
  let accessLines = false;
  writeFileSync(configFile, porticoConfig(porticoPort, backendPort, revision, accessLines));
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

  const direct = `http://127.0.0.1:${backendPort}${PATH}`;
  const viaBare = `http://127.0.0.1:${barePort}${PATH}`;
  const viaPortico = `http://127.0.0.1:${porticoPort}${PATH}`;
  const viaRevision = `http://127.0.0.1:${porticoPort}/rev${PATH}`;
  const viaNginx = `http://127.0.0.1:${proxyPort}${PATH}`;
  const viaJwt = `http://127.0.0.1:${porticoPort}/jwt${PATH}`;
  const viaOpen = `http://127.0.0.1:${porticoPort}/open${PATH}`;
  const bearer = { Authorization: `Bearer ${token}` };
  await waitFor(async () => (await fetch(direct)).ok, 'backend nginx');
  await waitFor(async () => (await fetch(viaNginx)).ok, 'proxy nginx');
  await waitFor(async () => (await fetch(viaBare)).ok, 'bare proxy');
  await waitFor(async () => (await fetch(viaPortico)).ok, 'portico');
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

  for (const url of [viaBare, viaPortico, viaOpen]) await startWrk(url, { ...wrkOptions, seconds: WARMUP_SECONDS }).done;
  await startWrk(viaJwt, { ...wrkOptions, seconds: WARMUP_SECONDS, headers: bearer }).done;

  const [load1] = loadavg();
  console.log(`gateway benchmark: ${Buffer.byteLength(item)}-byte JSON from nginx, wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s on loopback, ${cpus().length} cores, 1-minute load ${load1.toFixed(2)} at the start`);
  const directRun = await wrk(direct);
  const bare = await wrk(viaBare);
  const nginx = await wrk(viaNginx);
  const porticoQuiet = await wrk(viaPortico);
  console.log(row('backend directly', directRun));
  console.log(row('through the bare undici proxy', bare));
  console.log(row('through nginx proxy', nginx));
  console.log(row('through Portico, access lines off', porticoQuiet));

  // Access control: the same route shape unprotected and behind an RS256 jwt, back to back.
  const open = await wrk(viaOpen);
  const guarded = await wrk(viaJwt, bearer);
  console.log(row('Portico, no access control', open));
  console.log(row('Portico, jwt RS256', guarded));

  // Access lines on: one access line and one backend line per request, written to the log file.
  accessLines = true;
  await saveAndObserve();
  const logBefore = statSync(logFile).size;
  const portico = await wrk(viaPortico);
  const logBytes = statSync(logFile).size - logBefore;
  console.log(row('through Portico, access lines on', portico));
  console.log(`    (${(logBytes / Math.max(1, portico.requests)).toFixed(0)} log bytes per request written to ${logFile.replace(dir, '<tmp>')})`);

  // Latency below saturation: the same fixed rate, half of Portico's peak, through both proxies.
  const rate = Math.round(portico.rps / 2);
  const porticoPaced = await wrkAtRate(viaPortico, rate);
  const barePaced = await wrkAtRate(viaBare, rate);
  console.log(`at a fixed ${rate} req/s (half of Portico's peak with access lines on; wrk paced by fixed-rate.lua):`);
  console.log(row('through Portico, access lines on', porticoPaced));
  console.log(row('through the bare undici proxy', barePaced));

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

  console.log('targets (issue 15), each against its reference in this run:');
  console.log(verdict('Portico (access lines on) / bare undici proxy', portico.rps / bare.rps, TARGETS.bare));
  console.log(verdict('Portico (access lines on) / nginx proxy', portico.rps / nginx.rps, TARGETS.nginx));
  const paced = porticoPaced.rps >= 0.95 * rate && barePaced.rps >= 0.95 * rate ? '' : ` (rate not held: Portico ${porticoPaced.rps.toFixed(0)}, bare ${barePaced.rps.toFixed(0)} req/s)`;
  console.log(`${verdict(`p99 at ${rate} req/s, Portico ${porticoPaced.p99} vs bare proxy ${barePaced.p99} + ${TARGETS.p99SlackMs} ms`, porticoPaced.p99Ms, barePaced.p99Ms + TARGETS.p99SlackMs, { atMost: true, unit: 'ms' })}${paced}`);
  console.log(verdict('Portico jwt RS256 / no access control', guarded.rps / open.rps, TARGETS.jwt));
  console.log(verdict(`reload p99 over ${RELOADS} saves`, reloadP99, TARGETS.reloadP99Ms, { atMost: true, unit: 'ms' }));
  console.log(verdict(`failed requests over ${RELOADS} reloads under load`, failed, 0, { atMost: true, unit: 'requests' }));
  console.log(`  (for reference: Portico access lines off / bare ${(porticoQuiet.rps / bare.rps).toFixed(3)}, / nginx ${(porticoQuiet.rps / nginx.rps).toFixed(3)}, / direct ${(porticoQuiet.rps / directRun.rps).toFixed(3)}; bare / nginx ${(bare.rps / nginx.rps).toFixed(3)})`);
  if (failed > 0) process.exitCode = 1;
} finally {
  cleanup();
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}
