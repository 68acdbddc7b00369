// Callback delivery throughput: deliveries/s from the outbox to a loopback HTTPS receiver with
// 1 callback-worker process on SQLite and 1, 2, 4 on PostgreSQL, next to the receiver's own
// ceiling (direct POSTs from one process). Build first: npm run build.
// BENCH_ROWS (default 2000), BENCH_CONCURRENCY for the ceiling (default 25 = one worker's batch).
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, request } from 'undici';
import { makeTestTls } from '../../../daemon/dist/ingest/testing/https-receiver.js';
import { seedDeliveries } from '../../../daemon/dist/ingest/testing/ingest-fixture.js';
import { PostgresStore, quoteIdent } from '../../../daemon/dist/store/postgres-store.js';
import { SqliteStore } from '../../../daemon/dist/store/sqlite-store.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 25);
const PG_URL = process.env.PORTICO_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const HERE = fileURLToPath(new URL('.', import.meta.url));
const PORTICO = join(HERE, '..', '..', '..', 'daemon', 'bin', 'portico.js');

const tls = makeTestTls();
const receiver = fork(join(HERE, 'receiver.mjs'), [join(tls.dir, 'server.pem'), join(tls.dir, 'server.key')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const ask = (message) => new Promise((resolve) => {
  receiver.once('message', resolve);
  if (message) receiver.send(message);
});
const { port } = await ask(null);
const url = `https://127.0.0.1:${port}/hook`;

async function ceiling() {
  const agent = new Agent({ connect: { ca: tls.ca }, connections: CONCURRENCY });
  const body = JSON.stringify({ ingest_job_id: '00000000-0000-4000-8000-000000000000', tenant_id: 't1', workspace_id: 'w1', dataset_id: 'd', table_id: null, file_id: null, snapshot_id: null, job_kind: 'DESCRIBE_PASS', status: 'SUCCEEDED', attempts: 1, request_json: {}, result_json: { n: 1 } });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < ROWS) {
        next += 1;
        const res = await request(url, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
        await res.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return ROWS / seconds;
}

function startWorker(env, dataDir, index) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PORTICO, 'daemon', '--mode', 'callback-worker'], {
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
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const onData = (d) => {
      out += d;
      if (out.includes('ready: ')) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`worker ${index} exited ${code}:\n${out}`)));
  });
}

async function run(kind, processes) {
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
    await ask('reset');
    await seedDeliveries(store, ROWS, url);
    const started = performance.now();
    for (;;) {
      const row = await store.get("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DELIVERED'");
      if (Number(row.n) >= ROWS) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const seconds = (performance.now() - started) / 1000;
    const seen = await ask('count');
    await store.close();
    return { rate: ROWS / seconds, seconds, ...seen };
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

const top = await ceiling();
console.log(`callbacks benchmark: ${ROWS} deliveries per run, loopback HTTPS receiver in its own process`);
console.log(`receiver ceiling (one process, ${CONCURRENCY} concurrent POSTs): ${top.toFixed(0)} req/s\n`);
console.log('setup                          deliveries/s   of ceiling   received (distinct)');
const runs = [
  ['sqlite', 1],
  ['postgres', 1],
  ['postgres', 2],
  ['postgres', 4],
];
const results = [];
for (const [kind, n] of runs) {
  const r = await run(kind, n);
  results.push(r);
  console.log(`${`${kind}, ${n} worker process${n > 1 ? 'es' : ''}`.padEnd(30)} ${r.rate.toFixed(0).padStart(12)}   ${`${((r.rate / top) * 100).toFixed(0)}%`.padStart(10)}   ${r.count} (${r.distinct})`);
}
const pg1 = results[1].rate;
console.log(`\nPostgreSQL scaling: 2 processes ${(results[2].rate / pg1).toFixed(2)}x, 4 processes ${(results[3].rate / pg1).toFixed(2)}x of 1 process`);
receiver.send('stop');
tls.dispose();
