// Infosessions endpoint vs nginx serving the same JSON bytes as a static file, on loopback.
// One run: generates 10,000 records in our CSV layout, starts the daemon on them, captures one
// JSON answer, serves those bytes with nginx (temp config), loads both with wrk, prints req/s
// and the ratio. Needs a build (npm run build), nginx and wrk (apt-get install -y nginx wrk).
//   BENCH_RECORDS=10000 BENCH_SECONDS=10 BENCH_CONNECTIONS=8 BENCH_THREADS=1 node scripts/bench/infosessions/run.mjs
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { daemonEnv, freePort, need, nginxConf, startNginx, startWrk, waitFor } from '../lib.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const PATH = '/v2/resources/infosessions.json';

/** RECORDS rows in our layout: the sample's real sessions repeated with new ids and spread dates. */
function generateCsv(file) {
  const sample = readFileSync(join(ROOT, 'config/data/infosessions.csv'), 'utf8');
  const lines = [];
  // Split the sample into records with the daemon's own parser rules (quoted fields span lines).
  let current = '';
  let quotes = 0;
  for (const line of sample.split('\r\n')) {
    current = current ? `${current}\r\n${line}` : line;
    quotes += (line.match(/"/g) ?? []).length;
    if (quotes % 2 === 0) {
      if (current !== '') lines.push(current);
      current = '';
      quotes = 0;
    }
  }
  const [header, ...rows] = lines;
  const out = [header];
  for (let i = 0; i < RECORDS; i++) {
    const row = rows[i % rows.length];
    const day = new Date(Date.UTC(2026, 0, 5) + Math.floor(i / 20) * 86_400_000).toISOString().slice(0, 10);
    // id and date are the first and third fields and never quoted in our layout's sample.
    const [, employer, , ...rest] = row.match(/^([^,]*),((?:"(?:[^"]|"")*"|[^,]*)),([^,]*),([\s\S]*)$/).slice(1);
    out.push([100_000 + i, employer, day, rest.join(',')].join(','));
  }
  writeFileSync(file, out.join('\r\n') + '\r\n');
}

/** wrk for SECONDS at fixed concurrency; resolves with its figures. */
const wrk = (url) => startWrk(url, { threads: THREADS, connections: CONNECTIONS, seconds: SECONDS }).done;

need('nginx');
need('wrk');
const dir = mkdtempSync(join(tmpdir(), 'portico-bench-infosessions-'));
// nginx workers run as an unprivileged user when started by root: they must be able to read the file.
chmodSync(dir, 0o755);
const children = [];
const cleanup = () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
};
process.on('exit', cleanup);

try {
  const csv = join(dir, 'infosessions.csv');
  generateCsv(csv);
  copyFileSync(join(ROOT, 'config/data/buildings.csv'), join(dir, 'buildings.csv'));
  const [controlPort, servicesPort, cdsPort, nginxPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const env = daemonEnv(join(dir, 'data'), { control: controlPort, services: servicesPort, cds: cdsPort }, { PORTICO_INFOSESSIONS_CSV: csv, PORTICO_BUILDINGS_CSV: join(dir, 'buildings.csv') });
  const daemon = spawn(process.execPath, [join(ROOT, 'daemon/bin/portico.js'), 'daemon', '--mode', 'gateway'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(daemon);
  const controlUrl = `http://127.0.0.1:${controlPort}`;
  await waitFor(async () => (await fetch(`${controlUrl}/`)).ok, 'daemon');
  const created = execFileSync(process.execPath, [join(ROOT, 'daemon/bin/portico.js'), 'keys', 'create', '--name', 'bench', '--url', controlUrl, '--data-dir', join(dir, 'data')], { env, encoding: 'utf8' });
  const key = created.trim().split('\n').at(-1);
  const daemonUrl = `http://127.0.0.1:${servicesPort}${PATH}?key=${key}`;
  const body = await (await fetch(daemonUrl)).arrayBuffer();
  const parsed = JSON.parse(Buffer.from(body).toString('utf8'));
  if (parsed.meta.status !== 200 || parsed.data.length !== RECORDS) throw new Error(`bench: expected ${RECORDS} records, got status ${parsed.meta.status} with ${parsed.data.length}`);

  // nginx: one worker (the daemon is one event loop too), the captured bytes as a static file.
  mkdirSync(join(dir, 'www/v2/resources'), { recursive: true });
  writeFileSync(join(dir, 'www', PATH), Buffer.from(body));
  const nginxDir = nginxConf(dir, 'nginx', `  server {\n    listen 127.0.0.1:${nginxPort};\n    root ${dir}/www;\n  }`);
  children.push(startNginx(nginxDir));
  const nginxUrl = `http://127.0.0.1:${nginxPort}${PATH}?key=${key}`;
  await waitFor(async () => (await fetch(nginxUrl)).ok, 'nginx', 5_000).catch((error) => {
    let log = '';
    try {
      log = readFileSync(join(nginxDir, 'error.log'), 'utf8');
    } catch {}
    throw new Error(`${error.message}\n${log}`);
  });

  console.log(`infosessions benchmark: ${RECORDS} records, ${body.byteLength} bytes per answer, wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s on loopback`);
  const portico = await wrk(daemonUrl);
  const staticFile = await wrk(nginxUrl);
  const row = (name, r) => `${name.padEnd(26)} ${r.rps.toFixed(1).padStart(10)} req/s  ${r.transfer.padStart(9)}/s  p50 ${r.p50.padStart(8)}  p99 ${r.p99.padStart(8)}  non-2xx ${r.non2xx}`;
  console.log(row('portico endpoint (JSON)', portico));
  console.log(row('nginx static file', staticFile));
  console.log(`ratio portico / nginx: ${(portico.rps / staticFile.rps).toFixed(3)} (${((portico.rps / staticFile.rps) * 100).toFixed(1)}% of static-file throughput)`);
  const usage = JSON.parse(execFileSync(process.execPath, [join(ROOT, 'daemon/bin/portico.js'), 'keys', 'list', '--json', '--url', controlUrl, '--data-dir', join(dir, 'data')], { env, encoding: 'utf8' }));
  console.log(`usage counted by the daemon for the bench key: ${usage[0]?.requestsThisMonth} calls`);
} finally {
  cleanup();
  await new Promise((r) => setTimeout(r, 300));
  rmSync(dir, { recursive: true, force: true });
}
