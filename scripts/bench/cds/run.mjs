// Cluster discovery fan-out: BENCH_CLUSTERS backends (default 10,000) in a generated gateway
// config, BENCH_STREAMS concurrent streams (default 1,000), once state-of-the-world (wildcard)
// and once delta. For each: one backend changes in the config file; we time from the file write
// to the last stream receiving the new version (load + snapshot + fan-out), the same for the
// push alone, bytes sent per change, and the CDS process's memory.
//
// The CDS runs in this process exactly as in `--mode cds` (FileClusterSource watching the file,
// ClusterCatalog, CdsGrpcServer on loopback), from daemon/dist (run `npm run build` first).
// The clients run in a child process (clients.mjs) so they do not share this event loop; they
// decode only version and nonce of each response and ACK it, as a proxy would.
//   BENCH_CLUSTERS=10000 BENCH_STREAMS=1000 npm run bench:cds
// BENCH_KINDS=delta (or sotw) runs one kind; BENCH_DIST=/path/to/daemon/dist/ measures another
// build (e.g. a copy of an older one, to compare before/after on the same machine).
// BENCH_PROFILE=DIR writes a CPU profile of this process from each file write to the publish
// (DIR/cds-load-<kind>.cpuprofile; summarise with scripts/bench/gateway/profile.mjs FILE).
// Each save changes one backend's connect_timeout, keeping the file's length (the parse takes
// over the unchanged blocks before and after the edit); BENCH_EDIT=grow makes each save longer.
import { fork, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Session } from 'node:inspector/promises';
import { cpuUs, mainThreadCpuUs, nodeFlags } from '../lib.mjs';


// The CDS runs in this process: run it with the daemon's Node flags, as `npm start` and the
// service file run the daemon (BENCH_NODE_FLAGS="" measures without them).
const NODE_FLAGS = nodeFlags(process.env.BENCH_NODE_FLAGS);
if (!NODE_FLAGS.every((f) => process.execArgv.includes(f))) {
  const again = spawnSync(process.execPath, [...NODE_FLAGS, ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1_000);
const PROFILE = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : null;
const KINDS = (process.env.BENCH_KINDS ?? 'sotw,delta').split(',').map((k) => k.trim());
/** BENCH_EDIT=grow makes each save one character longer than the last (the parse then takes over only the blocks before the edit). */
const GROW = process.env.BENCH_EDIT === 'grow';
const dist = process.env.BENCH_DIST ? pathToFileURL(`${process.env.BENCH_DIST.replace(/\/$/, '')}/`) : new URL('../../../daemon/dist/', import.meta.url);
// The live heap (after a full GC) is what the streams retain; heapUsed alone includes garbage.
v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const liveHeap = () => {
  gc();
  return process.memoryUsage().heapUsed;
};
const { ClusterCatalog } = await import(new URL('cds/catalog.js', dist).href);
const { ClientRegistry } = await import(new URL('cds/client-registry.js', dist).href);
const { FileClusterSource } = await import(new URL('cds/cluster-source.js', dist).href);
const { CdsGrpcServer } = await import(new URL('cds/grpc-server.js', dist).href);
const { loadCdsTypes } = await import(new URL('cds/proto-root.js', dist).href);
const { Logger } = await import(new URL('core/logger.js', dist).href);

const now = () => performance.timeOrigin + performance.now();

/** A CPU profile of this process (its main thread) from now until `done()` holds, polled each millisecond. */
async function startProfile() {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    async stopAt(done, out) {
      while (!done()) await new Promise((r) => setTimeout(r, 1));
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      mkdirSync(PROFILE, { recursive: true });
      writeFileSync(out, JSON.stringify(profile));
      console.log(`  CPU profile of the load: ${out}`);
    },
  };
}
const mb = (n) => (n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

function config(changedTimeout) {
  const lines = ['definitions {'];
  for (let i = 0; i < CLUSTERS; i += 1) {
    const origin = i % 2 === 0 ? `http://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8080` : `https://svc-${i}.internal`;
    const timeout = i === Math.floor(CLUSTERS / 2) ? changedTimeout : '5s';
    lines.push(`  backend "svc_${i}" {`, `    origin = "${origin}"`, `    connect_timeout = "${timeout}"`);
    if (i % 10 === 0) lines.push('    max_connections = 100', '    beta_health {', '      path = "/healthz"', '    }');
    lines.push('  }');
  }
  lines.push('}', 'server {', '  endpoint "/" {', '    response {', '      body = "ok"', '    }', '  }', '}');
  return `${lines.join('\n')}\n`;
}

const dir = mkdtempSync(join(tmpdir(), 'portico-bench-cds-'));
const file = join(dir, 'portico.hcl');
writeFileSync(file, config('5s'));
const catalog = new ClusterCatalog(loadCdsTypes());
const registry = new ClientRegistry();
const server = new CdsGrpcServer(catalog, registry, new Logger({ level: 'error' }));
let loadedAt = 0;
const source = new FileClusterSource([file], {}, catalog, { loaded: () => (loadedAt = now()), failed: (m) => console.error(`bench: config failed: ${m}`) });
const t0 = now();
await source.start();
// Where the publish time goes: the watcher's event (after its debounce), the config load, the snapshot.
let loadStarted = 0;
let snapshotStarted = 0;
// And whether the load had a core to itself: this process's CPU time and the clients process's over the load.
let clientsPid = 0;
let cpuAtLoad = { self: 0, main: 0, clients: 0 };
let cpuDuringLoad = { self: 0, main: 0, clients: 0 };
const cpuNow = () => {
  const usage = process.cpuUsage();
  return { self: usage.user + usage.system, main: mainThreadCpuUs(process.pid), clients: clientsPid ? cpuUs(clientsPid) : 0 };
};
const startLoad = source.load.bind(source);
source.load = () => ((loadStarted = now()), (cpuAtLoad = cpuNow()), startLoad());
const updateFrom = catalog.updateFrom.bind(catalog);
catalog.updateFrom = (...args) => {
  snapshotStarted = now();
  const at = cpuNow();
  cpuDuringLoad = { self: at.self - cpuAtLoad.self, main: at.main - cpuAtLoad.main, clients: at.clients - cpuAtLoad.clients };
  return updateFrom(...args);
};
console.log(`CDS: ${catalog.current.resources.length} clusters loaded in ${(now() - t0).toFixed(0)} ms; full SotW response ${mb(catalog.wildcardBody().length)}`);
// Registered before the server's own listener, which pushes to the streams at once: the
// publish time is when the snapshot exists, not after the first streams were written.
let published = 0;
catalog.onChange(() => (published = now()));
await server.start({ host: '127.0.0.1', port: 0 });

const results = [];
let timeoutValue = 5;
for (const kind of KINDS) {
  const child = fork(new URL('clients.mjs', import.meta.url), [], { stdio: 'inherit', execArgv: ['--max-old-space-size=4096'] });
  clientsPid = child.pid;
  const ask = (message) =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send(message);
    });
  const setupStart = now();
  const ready = await ask({ type: 'open', kind, streams: STREAMS, address: `127.0.0.1:${server.port}`, version: catalog.current.version });
  await waitFor(() => registry.list().filter((c) => c.lastAck).length === STREAMS);
  const memBefore = process.memoryUsage();
  const heapIdle = liveHeap();
  console.log(`${kind}: ${STREAMS} streams connected and ACKed the initial state in ${((now() - setupStart) / 1000).toFixed(1)} s (${mb(ready.bytes)} received)`);

  timeoutValue += 1;
  const old = catalog.current.version;
  const pending = ask({ type: 'await', notVersion: old });
  // The text is built before the clock starts: the write, not building it, is the save.
  const text = config(GROW ? `${timeoutValue}${'0'.repeat(results.length + 1)}s` : `${timeoutValue}s`);
  const profiler = PROFILE ? await startProfile() : null;
  const written = now();
  writeFileSync(file, text);
  if (profiler) await profiler.stopAt(() => published > written, join(PROFILE, `cds-load-${kind}.cpuprofile`));
  const done = await pending;
  const memAfter = process.memoryUsage();
  const heapLive = liveHeap();
  results.push({
    kind,
    writeToLast: done.lastAt - written,
    pushToLast: done.lastAt - published,
    loadToPublish: published - written,
    parts: { watcher: loadStarted - written, load: snapshotStarted - loadStarted, snapshot: published - snapshotStarted },
    loadCpu: cpuDuringLoad,
    bytesPerChange: done.bytes,
    perStream: done.bytes / STREAMS,
    rss: memAfter.rss,
    heap: memAfter.heapUsed,
    heapIdle,
    heapLive,
    rssIdle: memBefore.rss,
    maxRss: process.resourceUsage().maxRSS * 1024,
  });
  await ask({ type: 'close' });
  child.kill();
  await waitFor(() => registry.size === 0);
}

console.log(`\nCDS fan-out: ${CLUSTERS} clusters, ${STREAMS} concurrent streams, one backend changed per run`);
console.log('kind   file write→last stream  publish→last stream  bytes per change  per stream   CDS RSS (idle/after/peak)  heap  live heap (idle/after change)');
for (const r of results) {
  console.log(
    `${r.kind.padEnd(6)} ${`${r.writeToLast.toFixed(0)} ms`.padStart(22)}  ${`${r.pushToLast.toFixed(0)} ms`.padStart(19)}  ${mb(r.bytesPerChange).padStart(16)}  ${`${(r.perStream / 1024).toFixed(1)} KiB`.padStart(10)}   ${`${mb(r.rssIdle)} / ${mb(r.rss)} / ${mb(r.maxRss)}`.padStart(25)}  ${mb(r.heap)}  ${mb(r.heapIdle)} / ${mb(r.heapLive)}`,
  );
}
const sotw = results.find((r) => r.kind === 'sotw');
const delta = results.find((r) => r.kind === 'delta');
const base = liveHeap();
for (const r of results) console.log(`${r.kind}: ${((r.heapIdle - base) / STREAMS / 1024).toFixed(1)} KiB of live heap per open stream (idle, over the ${mb(base)} with no stream)`);
console.log('\ntargets (issue 15): a 10,000-backend config loaded and published in <= 500 ms; file write -> last delta stream <= 1 s at 1,000 streams');
for (const r of results) {
  const verdict = (value, limit) => `${value.toFixed(0)} ms = ${(value / limit).toFixed(2)}x the ${limit} ms target: ${value <= limit ? 'met' : 'not met'}`;
  console.log(`${r.kind.padEnd(6)} file write -> published (watcher, load, snapshot): ${verdict(r.loadToPublish, 500)} (watcher ${r.parts.watcher.toFixed(0)} ms, load ${r.parts.load.toFixed(0)} ms, snapshot ${r.parts.snapshot.toFixed(0)} ms)`);
  console.log(`${''.padEnd(6)} CPU during the load: this process ${(r.loadCpu.self / 1000).toFixed(0)} ms (its main thread ${(r.loadCpu.main / 1000).toFixed(0)} ms), the clients process ${(r.loadCpu.clients / 1000).toFixed(0)} ms`);
  if (r.kind === 'delta') console.log(`${r.kind.padEnd(6)} file write -> last stream: ${verdict(r.writeToLast, 1000)}`);
}
if (sotw && delta) console.log(`delta sends ${(sotw.bytesPerChange / Math.max(1, delta.bytesPerChange)).toFixed(0)}x fewer bytes per change than SotW; config load + snapshot took ${delta.loadToPublish.toFixed(0)} ms of the delta run`);
await server.stop();
await source.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);

async function waitFor(predicate) {
  while (!predicate()) await new Promise((r) => setTimeout(r, 20));
}
