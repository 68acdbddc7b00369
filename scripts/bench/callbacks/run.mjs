// Callback delivery throughput: deliveries/s from the outbox to a loopback HTTPS receiver with
// 1 callback-worker process on SQLite and 1, 2, 4 on PostgreSQL, next to the receiver's own
// ceiling measured in the same run (bare undici clients sending through the dispatcher as the
// worker does, no database, the same requests). The receiver is a cluster of processes on one
// port, so more worker processes are not held back by it.
// Build first: npm run build.
//   BENCH_ROWS=10000                deliveries measured per run (signed: each row has a secret)
//   BENCH_WARMUP=3000               requests (deliveries) each process makes before the measured ones
//   BENCH_CONCURRENCY=25            requests in flight for the ceiling (the workers' default batch)
//   BENCH_RECEIVERS=<cores>         receiver processes
//   BENCH_RUNS=sqlite:1,postgres:1,postgres:2,postgres:4
//   BENCH_PORTICO=daemon/bin/portico.js   another build's CLI (before/after comparisons); its dist/ seeds the rows
//   BENCH_NODE_FLAGS="..."          the workers' Node flags (the daemon's own by default, as `npm start`
//                                   and the service file run it; "" measures without)
//   BENCH_PROFILE=DIR               worker processes run with --cpu-prof into DIR; the top functions
//                                   by self time are printed (scripts/bench/gateway/profile.mjs FILE)
// With the SQLite run it also prints what 0.8 of the ceiling leaves a worker on this machine's
// cores (the receiver's CPU a request is measured at the ceiling) against a worker's floor: the
// bare client's CPU a request plus the outbox's own writes, timed alone in this process.
import { execFileSync, fork, spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { cpuUs, nodeFlags, reapedCpuUs, statFields, verdict, waitFor } from '../lib.mjs';

const ROWS = Number(process.env.BENCH_ROWS ?? 10000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 25);
const RECEIVERS = Number(process.env.BENCH_RECEIVERS ?? availableParallelism());
const RUNS = (process.env.BENCH_RUNS ?? 'sqlite:1,postgres:1,postgres:2,postgres:4').split(',').map((r) => {
  const [kind, n] = r.split(':');
  if ((kind !== 'sqlite' && kind !== 'postgres') || !(Number(n) >= 1)) throw new Error(`BENCH_RUNS: "${r}" is not sqlite:N or postgres:N`);
  return { kind, processes: Number(n) };
});
const PROFILE = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : null;
const NODE_FLAGS = nodeFlags(process.env.BENCH_NODE_FLAGS);
const PG_URL = process.env.PORTICO_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HERE = fileURLToPath(new URL('.', import.meta.url));
const PORTICO = resolve(process.env.BENCH_PORTICO ?? join(HERE, '..', '..', '..', 'daemon', 'bin', 'portico.js'));
// The build under test also seeds the outbox: its rows' ids (their order) are part of what it writes.
const DIST = join(PORTICO, '..', '..', 'dist');
const { makeTestTls } = await import(pathToFileURL(join(DIST, 'ingest/testing/https-receiver.js')).href);
const { seedDeliveries } = await import(pathToFileURL(join(DIST, 'ingest/testing/ingest-fixture.js')).href);
const { PostgresStore, quoteIdent } = await import(pathToFileURL(join(DIST, 'store/postgres-store.js')).href);
const { SqliteStore } = await import(pathToFileURL(join(DIST, 'store/sqlite-store.js')).href);
const { migrate } = await import(pathToFileURL(join(DIST, 'store/migrate.js')).href);
const { INGEST_MIGRATIONS } = await import(pathToFileURL(join(DIST, 'ingest/migrations.js')).href);
const { claimDue, recordAndRefill } = await import(pathToFileURL(join(DIST, 'ingest/outbox.js')).href);
const { DEFAULT_RETRY_SCHEDULE } = await import(pathToFileURL(join(DIST, 'ingest/backoff.js')).href);
const SECRET = 'whsec_bench_0123456789abcdef';

const tls = makeTestTls();
const receiver = fork(join(HERE, 'receiver.mjs'), [join(tls.dir, 'server.pem'), join(tls.dir, 'server.key'), String(RECEIVERS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = (message) => new Promise((resolve) => {
  receiver.once('message', resolve);
  if (message) receiver.send(message);
});
const { port } = await ask(null);
const url = `https://127.0.0.1:${port}/hook`;

/**
 * What the receiver took from `clients` bare load processes sharing CONCURRENCY requests in
 * flight: requests/s, and the load processes' CPU time per request.
 */
async function ceiling(clients, mode = 'raw') {
  const share = Math.ceil(ROWS / clients);
  const profile = PROFILE && clients === 1 ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [];
  const loads = Array.from({ length: clients }, (_, i) => {
    const inFlight = Math.max(1, Math.floor(CONCURRENCY / clients) + (i < CONCURRENCY % clients ? 1 : 0));
    return fork(join(HERE, 'load.mjs'), [url, tls.caFile, String(share), String(inFlight), String(WARMUP), mode], { execArgv: profile });
  });
  const next = (child) => new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => code !== 0 && reject(new Error(`load process exited ${code}`)));
  });
  await Promise.all(loads.map(next));
  const receiverBefore = (await ask('cpu')).cpuUs;
  const from = hrtimeUs();
  const ends = Promise.all(loads.map(next));
  for (const l of loads) l.send('go');
  const reports = await ends;
  const to = Math.max(...reports.map((e) => e.endedAt));
  const receiverCpu = (await ask('cpu')).cpuUs - receiverBefore;
  await Promise.all(loads.map((l) => new Promise((r) => (l.exitCode !== null ? r() : l.once('exit', r)))));
  if (profile.length > 0) printProfiles('bare client', { from, to });
  const requests = share * clients;
  return { rate: requests / ((to - from) / 1e6), cpuPerRequest: reports.reduce((n, r) => n + r.cpuUs, 0) / requests, receiverCpuPerRequest: receiverCpu / requests };
}

/**
 * The SQLite outbox's own CPU a delivery, nothing else: in this process, rows claimed a batch
 * at a time and recorded as delivered in group commits of half a batch that claim the freed
 * slots, as a worker does, with no HTTP, signature, log line or event. A lower bound of what a
 * SQLite worker spends on its store (its events add a row per group).
 */
async function sqliteStoreAlone() {
  const dir = mkdtempSync(join(tmpdir(), 'portico-bench-store-'));
  const store = new SqliteStore({ file: join(dir, 'portico.db') });
  const group = Math.ceil(CONCURRENCY / 2);
  let leases = 0;
  const lease = () => ({ owner: 'bench', token: `lease-${(leases += 1)}` });
  const pass = async (rows) => {
    await seedDeliveries(store, rows, url, SECRET);
    const cpu = process.cpuUsage();
    const first = lease();
    const inFlight = (await claimDue(store, first, Date.now(), Date.now() + 60_000, CONCURRENCY)).map((row) => ({ row, lease: first }));
    let delivered = 0;
    while (inFlight.length > 0) {
      const now = Date.now();
      const items = inFlight.splice(0, group).map(({ row, lease: held }) => ({ row, lease: held, now, outcome: { startedAt: now, durationMs: 1, statusCode: 200, error: null, responseBody: null, ok: true } }));
      const next = lease();
      const commit = await recordAndRefill(store, items, DEFAULT_RETRY_SCHEDULE, { lease: next, now, leaseUntil: now + 60_000, limit: items.length });
      if (commit.results instanceof Error) throw commit.results;
      delivered += commit.results.filter((r) => r?.status === 'DELIVERED').length;
      inFlight.push(...commit.claimed.map((row) => ({ row, lease: next })));
    }
    const used = process.cpuUsage(cpu);
    if (delivered !== rows) throw new Error(`store alone: ${delivered} of ${rows} rows recorded as delivered`);
    return (used.user + used.system) / rows;
  };
  try {
    await migrate(store, [{ area: 'ingest', migrations: INGEST_MIGRATIONS }]);
    await pass(WARMUP);
    return await pass(ROWS);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * CPU time (µs) of the local PostgreSQL server so far: every postgres process, and the ended
 * backends the postmaster reaped. NaN when the server is not a local process we can read.
 */
function postgresCpuUs() {
  try {
    const pids = execFileSync('pgrep', ['-x', 'postgres'], { encoding: 'utf8' }).trim().split('\n').map(Number);
    const postmaster = Math.min(...pids);
    const reaped = statFields(`/proc/${postmaster}/stat`);
    // A backend that ended between pgrep and the read counts with the reaped ones next time.
    const live = pids.map(cpuUs).filter((us) => !Number.isNaN(us));
    return live.reduce((n, us) => n + us, 0) + (reaped ? reapedCpuUs(reaped) : NaN);
  } catch {
    return NaN;
  }
}

/**
 * Starts one `portico daemon --mode callback-worker`; its output goes to a file (a pipe would
 * wake this process for every delivery line and take CPU from the run).
 */
async function startWorker(env, dataDir, index) {
  const profile = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [];
  const outFile = join(dataDir, `worker-${index}.log`);
  const out = openSync(outFile, 'w');
  const child = spawn(process.execPath, [...NODE_FLAGS, ...profile, PORTICO, 'daemon', '--mode', 'callback-worker'], {
    env: {
      ...process.env,
      PORTICO_DATA_DIR: dataDir,
      PORTICO_CONTROL_ADDR: `127.0.0.1:0`,
      PORTICO_LOG_FORMAT: 'json',
      SERVICE_CALLBACK_CA_FILE: tls.caFile,
      SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1',
      SERVICE_CALLBACK_POLL_INTERVAL_S: '0.05',
      ...env,
    },
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  const output = () => readFileSync(outFile, 'utf8').slice(0, 20_000);
  const exited = new Promise((_, reject) => child.once('exit', (code) => reject(new Error(`worker ${index} exited ${code}:\n${output()}`))));
  await Promise.race([exited, waitFor(async () => output().includes('ready: '), `callback worker ${index}`)]);
  return child;
}

async function run({ kind, processes }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'portico-bench-'));
  let schema = null;
  const env = {};
  if (kind === 'postgres') {
    schema = `portico_bench_${Math.random().toString(16).slice(2, 10)}`;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
    await client.end();
    const u = new URL(PG_URL);
    u.searchParams.set('options', `-c search_path=${schema}`);
    env.PORTICO_DATABASE_URL = u.toString();
  }
  const workers = [];
  // SQLite workers share the data dir (one file); PostgreSQL ones share the schema, each with its own dir.
  const dirs = [dataDir, ...Array.from({ length: processes - 1 }, () => (kind === 'sqlite' ? dataDir : mkdtempSync(join(tmpdir(), 'portico-bench-'))))];
  try {
    for (let i = 0; i < processes; i++) workers.push(await startWorker(env, dirs[i], i));
    const store = kind === 'postgres' ? await PostgresStore.connect({ url: PG_URL, schema }) : new SqliteStore({ file: join(dataDir, 'portico.db') });
    // Warm-up (JIT, connections, caches), not measured.
    await seedDeliveries(store, WARMUP * processes, url, SECRET);
    await waitFor(async () => Number((await store.get("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DELIVERED'")).n) >= WARMUP * processes, 'warm-up deliveries', 120_000);
    await ask('reset');
    // Seeded as due in an hour, then made due in one statement: the workers' claims while the
    // seeding transaction holds the database are outside the measured time (and profile).
    await seedDeliveries(store, ROWS, url, SECRET, Date.now() + 3_600_000);
    const cpuBefore = workers.reduce((n, w) => n + cpuUs(w.pid), 0);
    const from = hrtimeUs();
    const started = performance.now();
    await store.run("UPDATE ingest_callback_outbox SET next_attempt_at = ? WHERE status = 'PENDING'", [Date.now()]);
    // The server's work for that statement is the benchmark's, not the deliveries'.
    const dbCpuBefore = kind === 'postgres' ? postgresCpuUs() : NaN;
    for (;;) {
      const row = await store.get("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DELIVERED'");
      if (Number(row.n) >= ROWS + WARMUP * processes) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const window = { from, to: hrtimeUs() };
    const cpuPerDelivery = (workers.reduce((n, w) => n + cpuUs(w.pid), 0) - cpuBefore) / ROWS;
    const dbCpuPerDelivery = (postgresCpuUs() - dbCpuBefore) / ROWS;
    const seen = await ask('count');
    await store.close();
    return { rate: ROWS / seconds, seconds, window, cpuPerDelivery, dbCpuPerDelivery, ...seen };
  } finally {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map((w) => new Promise((r) => (w.exitCode !== null ? r() : w.once('exit', r)))));
    for (const dir of new Set(dirs)) rmSync(dir, { recursive: true, force: true });
    if (schema) {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await client.end();
    }
  }
}

const hrtimeUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Keeps the measured window of each worker process's profile (V8 profiles and process.hrtime
 * share the monotonic clock), names the files after the run, and prints the first one's top
 * functions by self time.
 */
function printProfiles(label, { from, to }) {
  const files = readdirSync(PROFILE).filter((f) => f.endsWith('.cpuprofile') && f.startsWith('CPU.')).sort();
  const named = files.map((file) => {
    const profile = JSON.parse(readFileSync(join(PROFILE, file), 'utf8'));
    const samples = [];
    const timeDeltas = [];
    let at = profile.startTime;
    profile.samples.forEach((id, i) => {
      at += profile.timeDeltas[i] ?? 0;
      if (at < from || at > to) return;
      samples.push(id);
      timeDeltas.push(profile.timeDeltas[i] ?? 0);
    });
    const trimmed = join(PROFILE, `${label.replace(/\W+/g, '-')}-${file}`);
    writeFileSync(trimmed, JSON.stringify({ ...profile, startTime: from, endTime: to, samples, timeDeltas }));
    rmSync(join(PROFILE, file));
    return trimmed;
  });
  if (named.length === 0) return;
  const summary = execFileSync(process.execPath, [join(HERE, '..', 'gateway', 'profile.mjs'), named[0]], { env: { ...process.env, BENCH_TOP: process.env.BENCH_TOP ?? '25' }, encoding: 'utf8' });
  console.log(`  measured window of ${named[0]}:\n${summary.trimEnd().replace(/^/gm, '  ')}`);
}

if (PROFILE) mkdirSync(PROFILE, { recursive: true });
console.log(`callbacks benchmark: ${ROWS} signed deliveries measured per run after ${WARMUP} per process to warm up; loopback HTTPS receiver of ${RECEIVERS} process${RECEIVERS > 1 ? 'es' : ''} on one port`);
// One load process is the reference a worker process is held to; more show whether the receiver
// could take more. They send as the worker does, through undici's dispatcher with a handler that
// reads nothing; request() (a response object and a body stream each) is shown beside them.
const ceilings = [];
for (const clients of [...new Set([1, RECEIVERS])]) {
  const c = await ceiling(clients);
  ceilings.push(c);
  console.log(`receiver ceiling, ${clients} bare undici process${clients > 1 ? 'es' : ''} (dispatcher), ${CONCURRENCY} requests in flight: ${c.rate.toFixed(0)} req/s (client CPU ${c.cpuPerRequest.toFixed(0)} µs a request)`);
}
const viaRequest = await ceiling(1, 'request');
console.log(`  for comparison, 1 process through request(): ${viaRequest.rate.toFixed(0)} req/s (client CPU ${viaRequest.cpuPerRequest.toFixed(0)} µs a request)`);
const topCeiling = ceilings.reduce((a, b) => (b.rate > a.rate ? b : a));
const top = topCeiling.rate;
console.log(`ceiling: ${top.toFixed(0)} req/s (the receiver's CPU ${topCeiling.receiverCpuPerRequest.toFixed(0)} µs a request)\n`);
console.log('setup                          deliveries/s   of ceiling   CPU/delivery: workers   PostgreSQL   received (distinct)   new TLS connections   per receiver process');
const results = new Map();
for (const r of RUNS) {
  const label = `${r.kind}, ${r.processes} worker process${r.processes > 1 ? 'es' : ''}`;
  const got = await run(r);
  results.set(`${r.kind}:${r.processes}`, got);
  console.log(`${label.padEnd(30)} ${got.rate.toFixed(0).padStart(12)}   ${`${((got.rate / top) * 100).toFixed(0)}%`.padStart(10)}   ${`${got.cpuPerDelivery.toFixed(0)} µs`.padStart(21)}   ${(Number.isNaN(got.dbCpuPerDelivery) ? '' : `${got.dbCpuPerDelivery.toFixed(0)} µs`).padStart(10)}   ${`${got.count} (${got.distinct})`.padEnd(19)}   ${String(got.connections).padStart(19)}   ${got.perProcess.join(' / ')}`);
  if (got.distinct < ROWS) console.log(`  LOST: only ${got.distinct} of ${ROWS} deliveries reached the receiver`);
  if (PROFILE) printProfiles(label, got.window);
}
console.log('\ntargets:');
const sqlite = results.get('sqlite:1');
if (sqlite) console.log(verdict('SQLite, 1 worker process / receiver ceiling', sqlite.rate / top, 0.8));
if (sqlite) {
  // What the target leaves a worker on this machine's cores, against what one cannot do without.
  const storeAlone = await sqliteStoreAlone();
  const request = ceilings[0].cpuPerRequest;
  const rate = 0.8 * top;
  const cores = availableParallelism();
  const receiverCores = (rate * topCeiling.receiverCpuPerRequest) / 1e6;
  const budget = ((cores - receiverCores) * 1e6) / rate;
  const floor = request + storeAlone;
  console.log(`  at 0.8 of the ceiling (${rate.toFixed(0)} deliveries/s) the receiver takes ${receiverCores.toFixed(2)} cores of the ${cores}: a worker may spend at most ${budget.toFixed(0)} µs of CPU a delivery over all its threads, ${(1e6 / rate).toFixed(0)} µs on one thread`);
  console.log(`  what a SQLite worker cannot do without: the HTTPS request as the bare client makes it ${request.toFixed(0)} µs + the outbox's claims and group commits alone ${storeAlone.toFixed(0)} µs = ${floor.toFixed(0)} µs, before its signature, log line and event; this worker: ${sqlite.cpuPerDelivery.toFixed(0)} µs`);
  console.log(`  so 0.8 ${floor > budget ? `is out of reach on this machine: those two parts alone exceed the ${budget.toFixed(0)} µs` : `would need a worker within ${(budget - floor).toFixed(0)} µs of those two parts, spread over two threads`}`);
}
const pg1 = results.get('postgres:1');
for (const n of [2, 4]) {
  const r = results.get(`postgres:${n}`);
  if (pg1 && r) console.log(verdict(`PostgreSQL, ${n} worker processes / 1 process`, r.rate / pg1.rate, 1.0));
}
if (PROFILE) {
  console.log(`\nCPU profiles of the worker processes in ${PROFILE}; summarise one with:`);
  console.log(`  node scripts/bench/gateway/profile.mjs ${join(PROFILE, '<file>.cpuprofile')}`);
}
receiver.send('stop');
tls.dispose();
