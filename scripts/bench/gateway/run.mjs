// Gateway benchmark, one run on loopback:
//   1. the same backend (nginx serving an 858-byte JSON file) loaded directly, through Portico and
//      through an nginx reverse proxy, with wrk at fixed concurrency: req/s, p50/p99 and the
//      ratios Portico/direct and Portico/nginx;
//   2. reload latency: 100 saves of the config file, each timed from the write to the first
//      response carrying the new configuration's header (p50/p99);
//   3. failed requests while 100 reloads happen under wrk load (must be 0).
// Needs a build (npm run build), nginx and wrk (apt-get install -y nginx wrk).
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=32 BENCH_THREADS=1 BENCH_RELOADS=100 node scripts/bench/gateway/run.mjs
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, need, nginxConf, startNginx, startWrk, waitFor } from '../lib.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const RELOADS = Number(process.env.BENCH_RELOADS ?? 100);
const PATH = '/bench/item.json';

const wrkOptions = { threads: THREADS, connections: CONNECTIONS };
const wrk = (url, headers) => startWrk(url, { ...wrkOptions, seconds: SECONDS, headers }).done;
const JWT_TARGET = 0.85;
/** wrk until stop(). */
function wrkInBackground(url) {
  const run = startWrk(url, { ...wrkOptions, seconds: 3600 });
  children.push(run.child);
  return run;
}

/** The Portico config under test; `revision` goes into a response header so a reload is observable. */
function porticoConfig(port, backendPort, revision) {
  return `server "bench" {
  hosts = ["127.0.0.1:${port}"]
  endpoint "/**" {
    set_response_headers = { x-config-revision = "${revision}" }
    proxy {
      backend = "origin"
    }
  }
  // The same answer through the same kind of backend, open and behind an RS256 jwt (fixed key,
  // parsed once), for the access-control rows.
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
  // Access lines off for the run (nginx has access_log off too); warnings and errors still print.
  log_level = "warn"
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

try {
  const [backendPort, proxyPort, porticoPort, controlPort, servicesPort, cdsPort] = await Promise.all(Array.from({ length: 6 }, freePort));
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

  const { generateKeyPairSync } = await import('node:crypto');
  const { SignJWT } = await import('jose');
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  writeFileSync(join(dir, 'jwt-public.pem'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
  const token = await new SignJWT({ sub: 'bench' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('2h').sign(rsa.privateKey);
  const configFile = join(dir, 'portico.hcl');
  let revision = 0;
  writeFileSync(configFile, porticoConfig(porticoPort, backendPort, revision));
  const env = {
    ...process.env,
    PORTICO_DATA_DIR: join(dir, 'data'),
    PORTICO_CONTROL_ADDR: `127.0.0.1:${controlPort}`,
    PORTICO_SERVICES_ADDR: `127.0.0.1:${servicesPort}`,
    PORTICO_CDS_ADDR: `127.0.0.1:${cdsPort}`,
    PORTICO_LOG_LEVEL: 'warn',
  };
  const daemon = spawn(process.execPath, [join(ROOT, 'daemon/bin/portico.js'), 'daemon', '--mode', 'gateway', '-f', configFile], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  children.push(daemon);

  const direct = `http://127.0.0.1:${backendPort}${PATH}`;
  const viaPortico = `http://127.0.0.1:${porticoPort}${PATH}`;
  const viaNginx = `http://127.0.0.1:${proxyPort}${PATH}`;
  const viaJwt = `http://127.0.0.1:${porticoPort}/jwt${PATH}`;
  const viaOpen = `http://127.0.0.1:${porticoPort}/open${PATH}`;
  const bearer = { Authorization: `Bearer ${token}` };
  await waitFor(async () => (await fetch(direct)).ok, 'backend nginx');
  await waitFor(async () => (await fetch(viaNginx)).ok, 'proxy nginx');
  await waitFor(async () => (await fetch(viaPortico)).ok, 'portico');
  const body = await (await fetch(viaPortico)).text();
  if (body !== item) throw new Error('bench: Portico answered a different body than the backend');
  if ((await fetch(viaJwt)).status !== 401) throw new Error('bench: the jwt route answered without a token');
  if ((await (await fetch(viaJwt, { headers: bearer })).text()) !== item) throw new Error('bench: the jwt route answered a different body');

  console.log(`gateway benchmark: ${Buffer.byteLength(body)}-byte JSON from nginx, wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s on loopback, ${(await import('node:os')).cpus().length} cores`);
  const results = [
    ['backend directly', await wrk(direct)],
    ['through Portico', await wrk(viaPortico)],
    ['through nginx proxy', await wrk(viaNginx)],
  ];
  for (const [name, r] of results) {
    console.log(`  ${name.padEnd(22)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50.padStart(8)}  p99 ${r.p99.padStart(8)}  errors ${r.non2xx + r.socketErrors}`);
  }
  const [d, p, n] = results.map(([, r]) => r.rps);
  console.log(`  ratio Portico/direct ${(p / d).toFixed(3)}   Portico/nginx ${(p / n).toFixed(3)}`);

  // Access control: the same route shape unprotected and behind an RS256 jwt, back to back.
  const open = await wrk(viaOpen);
  const guarded = await wrk(viaJwt, bearer);
  for (const [name, r] of [['Portico, no access control', open], ['Portico, jwt RS256', guarded]]) {
    console.log(`  ${name.padEnd(26)} ${r.rps.toFixed(0).padStart(8)} req/s  p50 ${r.p50.padStart(8)}  p99 ${r.p99.padStart(8)}  errors ${r.non2xx + r.socketErrors}`);
  }
  const jwtRatio = guarded.rps / open.rps;
  console.log(`  ratio jwt/unprotected ${jwtRatio.toFixed(3)} (target >= ${JWT_TARGET}: ${jwtRatio >= JWT_TARGET ? 'met' : 'not met'})`);

  // Reload latency: save, then poll until the new revision answers.
  async function saveAndObserve() {
    revision += 1;
    const wanted = String(revision);
    const started = performance.now();
    writeFileSync(configFile, porticoConfig(porticoPort, backendPort, revision));
    for (;;) {
      const res = await fetch(viaPortico);
      await res.arrayBuffer();
      if (res.headers.get('x-config-revision') === wanted) return performance.now() - started;
      if (performance.now() - started > 10_000) throw new Error(`bench: revision ${wanted} not serving 10 s after the save`);
    }
  }
  const idle = [];
  for (let i = 0; i < RELOADS; i++) idle.push(await saveAndObserve());
  idle.sort((a, b) => a - b);
  console.log(`reload latency (save → new config serving), ${RELOADS} saves: p50 ${percentile(idle, 50).toFixed(1)} ms  p99 ${percentile(idle, 99).toFixed(1)} ms  max ${idle.at(-1).toFixed(1)} ms`);

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
  if (failed > 0) process.exitCode = 1;
} finally {
  cleanup();
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}
