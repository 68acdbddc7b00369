// Reloads of a large configuration: a gateway daemon (`--mode gateway`, the daemon's Node flags)
// serving BENCH_BACKENDS (10,000) `definitions` backends; the file is saved BENCH_SAVES (10)
// times, each save changing one backend's connect_timeout, and the script prints the
// `duration_ms` of each reload record (load, diff, building the new backend set and routes,
// the swap) and their median. With BENCH_BEFORE (another build's bin/portico.js, kept inside the
// checkout so it finds node_modules) the two builds take turns, save for save, and the ratio of
// the medians is printed. Needs a build (npm run build); no target: docs/gateway.md, "Performance".
// BENCH_BEFORE_NODE_FLAGS and BENCH_NODE_FLAGS give each daemon its Node flags (the daemon's own
// by default): with BENCH_BEFORE=daemon/bin/portico.js they compare two sets of flags on one build.
// BENCH_EDIT=grow makes each save one character longer (a leading zero more in the changed
// timeout), so the 5,000 backends after the change move instead of staying in place.
//   BENCH_BEFORE=.before/bin/portico.js node scripts/bench/gateway/reload-large.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, nodeFlags, waitFor } from '../lib.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BACKENDS = Number(process.env.BENCH_BACKENDS ?? 10_000);
const SAVES = Number(process.env.BENCH_SAVES ?? 10);
const GROW = process.env.BENCH_EDIT === 'grow';
/** The changed backend's connect_timeout at a save: a different value each time; with GROW one character longer each time. */
const timeoutAt = (save) => (GROW ? `${'0'.repeat(save)}${5 + (save % 2)}s` : `${5 + save}s`);
const BUILDS = [
  ...(process.env.BENCH_BEFORE ? [['before', resolve(process.env.BENCH_BEFORE), nodeFlags(process.env.BENCH_BEFORE_NODE_FLAGS)]] : []),
  [process.env.BENCH_BEFORE ? 'after' : 'this build', join(ROOT, 'daemon/bin/portico.js'), nodeFlags(process.env.BENCH_NODE_FLAGS)],
];

function config(port, timeout) {
  const lines = ['definitions {'];
  for (let i = 0; i < BACKENDS; i += 1) {
    const origin = i % 2 === 0 ? `http://10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8080` : `https://svc-${i}.internal`;
    lines.push(`  backend "svc_${i}" {`, `    origin = "${origin}"`, `    connect_timeout = "${i === Math.floor(BACKENDS / 2) ? timeout : '5s'}"`, '  }');
  }
  lines.push('}', 'server {', `  hosts = ["127.0.0.1:${port}"]`, '  endpoint "/" {', '    response {', '      body = "ok"', '    }', '  }', '}');
  return `${lines.join('\n')}\n`;
}

const dir = mkdtempSync(join(tmpdir(), 'portico-bench-reload-large-'));
const daemons = [];
process.on('exit', () => {
  for (const d of daemons) if (d.child.exitCode === null) d.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});

for (const [name, bin, nodeFlags] of BUILDS) {
  const [port, control, services, cds] = await Promise.all(Array.from({ length: 4 }, freePort));
  const file = join(dir, `${name.replace(' ', '-')}.hcl`);
  writeFileSync(file, config(port, '5s'));
  const env = { ...process.env, PORTICO_DATA_DIR: join(dir, `data-${name}`), PORTICO_CONTROL_ADDR: `127.0.0.1:${control}`, PORTICO_SERVICES_ADDR: `127.0.0.1:${services}`, PORTICO_CDS_ADDR: `127.0.0.1:${cds}`, PORTICO_GATEWAY_PROCESSES: '1', PORTICO_LOG_FORMAT: 'json' };
  const child = spawn(process.execPath, [...nodeFlags, bin, 'daemon', '--mode', 'gateway', '-f', file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const daemon = { name, child, file, port, out: '', durations: [] };
  child.stdout.on('data', (chunk) => (daemon.out += chunk));
  child.stderr.on('data', (chunk) => (daemon.out += chunk));
  daemons.push(daemon);
  await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/`)).ok, `${name} serving`, 120_000);
}

/** The duration of the next reload record the daemon logs after `from`. */
async function nextReload(daemon, from) {
  let duration = null;
  await waitFor(async () => {
    const match = /"duration_ms":\s*([0-9.]+)/.exec(daemon.out.slice(from));
    duration = match ? Number(match[1]) : null;
    return duration !== null;
  }, `${daemon.name} reload`, 60_000);
  return duration;
}

console.log(`reload of a ${BACKENDS}-backend configuration, one backend changed per save${GROW ? ' (each save one character longer)' : ''}, ${SAVES} saves per build (${BUILDS.map(([n]) => n).join(' and ')} taking turns)`);
for (let save = 1; save <= SAVES; save++) {
  for (const daemon of daemons) {
    const from = daemon.out.length;
    writeFileSync(daemon.file, config(daemon.port, timeoutAt(save)));
    daemon.durations.push(await nextReload(daemon, from));
    await new Promise((done) => setTimeout(done, 300));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const daemon of daemons) console.log(`  ${daemon.name.padEnd(10)} median ${median(daemon.durations).toFixed(1)} ms  [${daemon.durations.map((d) => d.toFixed(0)).join(' ')}]`);
if (daemons.length === 2) console.log(`  after / before: ${(median(daemons[1].durations) / median(daemons[0].durations)).toFixed(3)} of the time`);
process.exit(0);
