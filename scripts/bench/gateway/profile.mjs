// Where a proxy's CPU goes: runs the Portico daemon (a plain proxy route, access lines on and
// written to a file) or the bare undici proxy with --cpu-prof under wrk, then lists the
// functions with the most self time during the measured run (not start-up or warm-up), in
// per cent and in µs per request, and the same by file or kind (idle, GC, system calls).
// `node profile.mjs FILE.cpuprofile` only reads a profile.
//   BENCH_STRACE=1 also counts system calls per request (strace -c).
//   BENCH_HEAP=1 samples allocations instead (V8's sampling heap profiler over the inspector,
//   counting objects later collected by scavenges too): bytes allocated per request, by function.
//   BENCH_HEAP=survivors counts only objects that outlived a scavenge (those that are copied,
//   then promoted to the old generation: what makes scavenges slow).
//   BENCH_PERF=1 samples with Linux perf (software cpu-clock event, JIT names from --perf-basic-prof)
//   instead of V8's profiler: on some virtual machines V8's samples land almost only in writev and
//   name no JavaScript at all; perf's do, kernel and native code included. CPU time only (no idle).
//   BENCH_SYSCALLS=1 runs no profiler and counts with `perf stat` instead (kernel tracepoints, which
//   cost little, so batching at saturation stays as it is): system calls by kind, context switches and
//   CPU time per request, main thread and all threads.
//   BENCH_CONFIG=bench serves the gateway benchmark's whole configuration (portico-config.mjs), its
//   requests still on the plain `/**` route, instead of a configuration of that one route.
//   BENCH_ROUTE=jwt profiles the same route behind an RS256 jwt access control (Portico only);
//   BENCH_ENDPOINT_HCL='set_response_headers = { x-a = "1" }' adds attributes to the endpoint block.
//   BENCH_TARGET=portico|bare BENCH_RATE=2000 BENCH_SECONDS=10 BENCH_CONNECTIONS=32 BENCH_ACCESS_LINES=1 BENCH_TOP=40 node scripts/bench/gateway/profile.mjs
// BENCH_RATE paces wrk (fixed-rate.lua) so two targets do the same work; unset, wrk goes flat out.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { CLOCK_TICKS, daemonEnv, freePort, statFields, need, nginxConf, nodeFlags, startNginx, startWrk, waitFor } from '../lib.mjs';
import { BENCH_ITEM, porticoConfig } from './portico-config.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const HERE = fileURLToPath(new URL('./', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ACCESS_LINES = process.env.BENCH_ACCESS_LINES !== '0';
const TOP = Number(process.env.BENCH_TOP ?? 40);
const TARGET = process.env.BENCH_TARGET ?? 'portico';
const JWT = process.env.BENCH_ROUTE === 'jwt';
if (JWT && TARGET !== 'portico') throw new Error('BENCH_ROUTE=jwt profiles Portico only');
/** BENCH_STRACE=1: also count the proxy's system calls per request during the measured run. */
const STRACE = process.env.BENCH_STRACE === '1';
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : null;
/** BENCH_HEAP=1: allocations per request by function, instead of CPU time; =survivors: only what outlived a scavenge. */
const HEAP = process.env.BENCH_HEAP === '1' || process.env.BENCH_HEAP === 'survivors';
const SURVIVORS = process.env.BENCH_HEAP === 'survivors';
/** BENCH_PERF=1: Linux perf's cpu-clock samples instead of V8's profiler. */
const PERF = process.env.BENCH_PERF === '1';
const PERF_HZ = 4999;
/** BENCH_SYSCALLS=1: system calls and context switches per request from perf's tracepoints, no profiler. */
const SYSCALLS_ONLY = process.env.BENCH_SYSCALLS === '1';
const COUNTED = ['epoll_pwait', 'epoll_wait', 'writev', 'write', 'read', 'readv', 'futex', 'io_uring_enter'];
const PORTICO = process.env.BENCH_PORTICO ?? join(ROOT, 'daemon/bin/portico.js');
const PATH = '/bench/item.json';
/** BENCH_CONFIG=bench: the gateway benchmark's whole configuration (portico-config.mjs) instead of one route; requests still go to its plain `/**` route. */
const BENCH_CONFIG = process.env.BENCH_CONFIG === 'bench';
const rsa = JWT || BENCH_CONFIG ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : null;
/** The daemon's Node flags as `npm start` and the service file give them; BENCH_NODE_FLAGS="" profiles without. */
const NODE_FLAGS = nodeFlags(process.env.BENCH_NODE_FLAGS);

/**
 * Self time per function from a V8 .cpuprofile, counting only the samples between `from` and
 * `to` (µs of the monotonic clock, as process.hrtime).
 */
export function summarize(profile, from = -Infinity, to = Infinity) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < from || at > to) continue;
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + delta);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const functions = new Map();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const where = url ? `${url.startsWith('file://') ? relative(ROOT, fileURLToPath(url)) : url}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    functions.set(key, (functions.get(key) ?? 0) + us);
  }
  return { total, functions: [...functions].sort((a, b) => b[1] - a[1]) };
}

/**
 * Self time per symbol from `perf record` samples, in the shape of summarize(): JIT code named
 * as V8's profiler names it (`name path:line`), native code as `symbol (library)`.
 */
function perfSummary(data) {
  const out = execFileSync('perf', ['report', '-i', data, '--no-children', '--sort', 'dso,sym', '-g', 'none', '-n', '-q'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
  const functions = new Map();
  let total = 0;
  for (const line of out.split('\n')) {
    const m = /^\s*[\d.]+%\s+(\d+)\s+(\S+(?: tid \d+)?)\s+\[(.)\]\s+(.*?)\s*$/.exec(line);
    if (!m) continue;
    const us = (Number(m[1]) * 1e6) / PERF_HZ;
    const [, , dso, level, symbol] = m;
    const js = /^(?:JS|RegExp):[*^~+]?(.*?) ?(?:file:\/\/)?(\/\S+|node:\S+)?$/.exec(symbol);
    let key;
    if (level === 'k') key = `${symbol} (kernel)`;
    else if (dso.startsWith('[JIT]') && js && symbol.startsWith('JS:')) {
      const where = js[2] ? js[2].replace(/:(\d+):\d+$/, ':$1') : '';
      key = `${js[1] || '(anonymous)'} ${where.startsWith('/') ? relative(ROOT, where) : where}`.trim();
    }
    else if (dso.startsWith('[JIT]')) key = symbol;
    else key = `${symbol} (${dso})`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    total += us;
  }
  return { total, functions: [...functions].sort((a, b) => b[1] - a[1]) };
}

/** Native frames that are system calls (their time is mostly the kernel's). */
const SYSCALLS = new Set(['writev', 'writeLatin1String', 'writeBuffer', 'writeUtf8String', 'writeString', 'read', 'close', 'fstat', 'open']);

function kindOf(name) {
  if (name.endsWith('(kernel)')) return 'kernel';
  if (/ \((node|libc\.so\.6|libstdc\+\+[^)]*|\[vdso\])\)$/.test(name)) return name.startsWith('Builtins_') ? 'V8 builtins' : 'native (node, V8, libc)';
  const file = /\s(\S+):\d+$/.exec(name)?.[1] ?? name;
  if (SYSCALLS.has(name)) return 'system calls (writev, write...)';
  if (file.includes('node_modules/undici')) return 'undici';
  if (file.startsWith('node:')) return 'node core (JS)';
  if (file.includes('daemon/dist/')) return `portico ${file.split('daemon/dist/')[1].split('/').slice(0, 2).join('/')}`;
  if (file.includes('bare-proxy.mjs')) return 'bare-proxy.mjs';
  return file;
}

function print({ total, functions }, top, requests = null) {
  const pct = (us) => `${((us / total) * 100).toFixed(1).padStart(5)}%`;
  const per = (us) => (requests ? `${(us / requests).toFixed(2).padStart(7)} µs/req` : '');
  console.log(`${(total / 1e6).toFixed(1)} s sampled during the measured run${requests ? ` (${requests} requests, ${(total / requests).toFixed(1)} µs each)` : ''}; top ${top} functions by self time:`);
  for (const [name, us] of functions.slice(0, top)) console.log(`  ${pct(us)} ${per(us)}  ${name}`);
  const groups = new Map();
  for (const [name, us] of functions) groups.set(kindOf(name), (groups.get(kindOf(name)) ?? 0) + us);
  console.log('by file or kind:');
  for (const [group, us] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${pct(us)} ${per(us)}  ${group}`);
}

/** A Chrome DevTools Protocol session with the process listening on `inspectPort`. */
async function inspector(inspectPort) {
  const [target] = await (await fetch(`http://127.0.0.1:${inspectPort}/json/list`)).json();
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => (socket.once('open', resolve), socket.once('error', reject)));
  let next = 0;
  const waiting = new Map();
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    const call = waiting.get(message.id);
    if (!call) return;
    waiting.delete(message.id);
    if (message.error) call.reject(new Error(message.error.message));
    else call.resolve(message.result);
  });
  return {
    send: (method, params = {}) => new Promise((resolve, reject) => {
      const id = ++next;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, method, params }));
    }),
    close: () => socket.close(),
  };
}

/** Bytes allocated per function (self) from a sampling heap profile's tree. */
function printHeap(profile, top, requests) {
  const bytes = new Map();
  let total = 0;
  const visit = (node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.startsWith('file://') ? relative(ROOT, fileURLToPath(url)) : url}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  console.log(`${(total / 1e6).toFixed(1)} MB allocated${SURVIVORS ? ' in objects that outlived a scavenge' : ''} during the measured run (${requests} requests, ${(total / requests).toFixed(0)} bytes each); top ${top} functions by bytes allocated:`);
  for (const [name, n] of [...bytes].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${((n / total) * 100).toFixed(1).padStart(5)}%  ${(n / requests).toFixed(0).padStart(6)} B/req  ${name}`);
  const groups = new Map();
  for (const [name, n] of bytes) groups.set(kindOf(name), (groups.get(kindOf(name)) ?? 0) + n);
  console.log('by file or kind:');
  for (const [group, n] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${((n / total) * 100).toFixed(1).padStart(5)}%  ${(n / requests).toFixed(0).padStart(6)} B/req  ${group}`);
}

if (process.argv[2]) {
  print(summarize(JSON.parse(readFileSync(process.argv[2], 'utf8'))), TOP);
} else {
  need('nginx');
  need('wrk');
  const dir = mkdtempSync(join(tmpdir(), 'portico-profile-gateway-'));
  // nginx's workers read the files as another user.
  chmodSync(dir, 0o755);
  const children = [];
  process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));
  mkdirSync(join(dir, 'log'));
  const logFile = join(dir, 'log/output.log');
  const profiles = join(dir, 'profiles');
  try {
    const [backendPort, proxyPort, controlPort, servicesPort, cdsPort, inspectPort] = await Promise.all(Array.from({ length: 6 }, freePort));
    // CPU profile, or an inspector session for the heap sampler.
    const profiling = SYSCALLS_ONLY ? [] : HEAP ? [`--inspect=127.0.0.1:${inspectPort}`] : PERF ? ['--perf-basic-prof'] : ['--cpu-prof', `--cpu-prof-dir=${profiles}`];
    if (PERF || SYSCALLS_ONLY) need('perf');
    mkdirSync(join(dir, 'www/bench'), { recursive: true });
    writeFileSync(join(dir, 'www', PATH), BENCH_ITEM);
    children.push(startNginx(nginxConf(dir, 'backend', `  server { listen 127.0.0.1:${backendPort}; root ${join(dir, 'www')}; }`)));
    // Not beside the config: the config watcher would see every log write.
    const log = openSync(logFile, 'w');
    let proxy;
    if (TARGET === 'bare') {
      // --cpu-prof writes its profile on a normal exit: SIGTERM becomes one.
      const exitOnTerm = 'data:text/javascript,process.on("SIGTERM",()=>process.exit(0))';
      proxy = spawn(process.execPath, [...profiling, '--import', exitOnTerm, join(HERE, 'bare-proxy.mjs'), String(proxyPort), `http://127.0.0.1:${backendPort}`], { cwd: ROOT, stdio: ['ignore', log, 'inherit'] });
    } else {
      const config = join(dir, 'portico.hcl');
      const guard = `${JWT ? '    access_control = ["bench_jwt"]\n' : ''}${process.env.BENCH_ENDPOINT_HCL ? `    ${process.env.BENCH_ENDPOINT_HCL}\n` : ''}`;
      const jwt = JWT ? '  jwt "bench_jwt" {\n    signature_algorithm = "RS256"\n    key_file = "jwt-public.pem"\n  }\n' : '';
      if (BENCH_CONFIG) writeFileSync(config, porticoConfig(proxyPort, backendPort, 0, ACCESS_LINES));
      else writeFileSync(config, `server "bench" {\n  hosts = ["127.0.0.1:${proxyPort}"]\n  endpoint "/**" {\n${guard}    proxy {\n      backend = "origin"\n    }\n  }\n}\ndefinitions {\n  backend "origin" {\n    origin = "http://127.0.0.1:${backendPort}"\n  }\n${jwt}}\nsettings {\n  log_level = "${ACCESS_LINES ? 'info' : 'warn'}"\n}\n`);
      if (JWT || BENCH_CONFIG) writeFileSync(join(dir, 'jwt-public.pem'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
      const env = daemonEnv(join(dir, 'data'), { control: controlPort, services: servicesPort, cds: cdsPort });
      proxy = spawn(process.execPath, [...NODE_FLAGS, ...profiling, PORTICO, 'daemon', '--mode', 'gateway', '-f', config], { cwd: ROOT, env, stdio: ['ignore', log, 'inherit'] });
    }
    closeSync(log);
    children.push(proxy);
    const url = `http://127.0.0.1:${proxyPort}${PATH}`;
    const headers = JWT ? { Authorization: `Bearer ${await new SignJWT({ sub: 'bench' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('2h').sign(rsa.privateKey)}` } : {};
    await waitFor(async () => (await fetch(url, { headers })).ok, TARGET);
    const load = { threads: 1, connections: CONNECTIONS, headers, ...(RATE ? { script: join(HERE, 'fixed-rate.lua'), scriptArgs: [RATE] } : {}) };
    await startWrk(url, { ...load, seconds: 3 }).done;
    // Only the measured run counts (not start-up, warm-up or shutdown).
    const strace = STRACE ? spawn('strace', ['-c', '-f', '-o', join(dir, 'strace.txt'), '-p', String(proxy.pid)], { stdio: 'ignore' }) : null;
    const session = HEAP ? await inspector(inspectPort) : null;
    await session?.send('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !SURVIVORS });
    const perfData = join(dir, 'perf.data');
    const perf = PERF ? spawn('perf', ['record', '-e', 'cpu-clock', '-F', String(PERF_HZ), '-p', String(proxy.pid), '-o', perfData], { stdio: 'ignore' }) : null;
    const statFile = join(dir, 'perf-stat.txt');
    const events = ['task-clock', 'context-switches', ...COUNTED.map((c) => `syscalls:sys_enter_${c}`), 'raw_syscalls:sys_enter'];
    const stat = SYSCALLS_ONLY ? spawn('perf', ['stat', '-x', ',', '-e', events.join(','), '-p', String(proxy.pid), '-o', statFile], { stdio: 'ignore' }) : null;
    const mainStat = SYSCALLS_ONLY ? spawn('perf', ['stat', '-x', ',', '-e', 'task-clock,context-switches,raw_syscalls:sys_enter', '-t', String(proxy.pid), '-o', `${statFile}.main`], { stdio: 'ignore' }) : null;
    const statBefore = SYSCALLS_ONLY ? statFields(`/proc/${proxy.pid}/stat`) : null;
    const from = Number(process.hrtime.bigint() / 1000n);
    const run = await startWrk(url, { ...load, seconds: SECONDS }).done;
    const to = Number(process.hrtime.bigint() / 1000n);
    const statAfter = SYSCALLS_ONLY ? statFields(`/proc/${proxy.pid}/stat`) : null;
    const heap = session ? (await session.send('HeapProfiler.stopSampling')).profile : null;
    session?.close();
    if (strace) {
      await new Promise((resolve) => (strace.once('exit', resolve), strace.kill('SIGINT')));
      console.log(`system calls per request (strace -c -f; strace slows every call down):`);
      for (const line of readFileSync(join(dir, 'strace.txt'), 'utf8').split('\n')) {
        const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)$/.exec(line);
        if (m && Number(m[1]) / run.requests >= 0.05) console.log(`  ${(Number(m[1]) / run.requests).toFixed(2).padStart(6)}  ${m[2]}`);
      }
    }
    const what = TARGET === 'bare' ? 'the bare undici proxy' : `Portico, a ${JWT ? 'jwt (RS256) protected' : 'plain'} proxy route, access lines ${ACCESS_LINES ? 'on' : 'off'}`;
    console.log(`wrk -c${CONNECTIONS} -d${SECONDS}s${RATE ? ` at ${RATE} req/s` : ''} through ${what}: ${run.rps.toFixed(0)} req/s, p99 ${run.p99}${SYSCALLS_ONLY ? '' : ' (the profiler slows the process down)'}`);
    if (stat) {
      await Promise.all([stat, mainStat].map((p) => new Promise((resolve) => (p.once('exit', resolve), p.kill('SIGINT')))));
      const counts = (file) => new Map(readFileSync(file, 'utf8').split('\n').filter((l) => /^[\d.]+,/.test(l)).map((l) => { const [value, , event] = l.split(','); return [event.replace(/^syscalls:sys_enter_/, ''), Number(value)]; }));
      const all = counts(statFile);
      const main = counts(`${statFile}.main`);
      const per = (n) => (n / run.requests).toFixed(3).padStart(8);
      console.log(`per request (perf stat; all threads, main thread):`);
      console.log(`  CPU µs           ${per(all.get('task-clock') * 1000)} ${per(main.get('task-clock') * 1000)}`);
      const ticks = (at) => ((Number(statAfter[at]) - Number(statBefore[at])) * 1e6) / CLOCK_TICKS;
      console.log(`  user, system µs  ${per(ticks(11))} ${per(ticks(12))}  (/proc, all threads)`);
      console.log(`  context switches ${per(all.get('context-switches'))} ${per(main.get('context-switches'))}`);
      console.log(`  system calls     ${per(all.get('raw_syscalls:sys_enter'))} ${per(main.get('raw_syscalls:sys_enter'))}`);
      for (const name of COUNTED) if (all.get(name) / run.requests >= 0.005) console.log(`  ${name.padEnd(16)} ${per(all.get(name))}`);
    } else if (heap) printHeap(heap, TOP, run.requests);
    else if (perf) {
      await new Promise((resolve) => (perf.once('exit', resolve), perf.kill('SIGINT')));
      print(perfSummary(perfData), TOP, run.requests);
    } else {
      const exited = new Promise((resolve) => proxy.once('exit', resolve));
      proxy.kill('SIGTERM');
      await exited;
      const file = readdirSync(profiles).find((f) => f.endsWith('.cpuprofile'));
      if (!file) throw new Error(`profile: ${TARGET} wrote no .cpuprofile`);
      print(summarize(JSON.parse(readFileSync(join(profiles, file), 'utf8')), from, to), TOP, run.requests);
      if (process.env.BENCH_KEEP_PROFILE) writeFileSync(process.env.BENCH_KEEP_PROFILE, readFileSync(join(profiles, file)));
    }
  } catch (error) {
    console.error(`profile: ${error.message}; the output ends with:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    process.exitCode = 1;
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}
