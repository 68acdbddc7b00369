#!/usr/bin/env node
// `npm start`: install if needed, build, then run the daemon on the embedded defaults.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_NODE_FLAGS } from './daemon-node-flags.mjs';
import { ensureDependencies } from './ensure-deps.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!ensureDependencies(root)) process.exit(1);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
if (spawnSync(npm, ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);

const daemon = spawn(process.execPath, [...DAEMON_NODE_FLAGS, join(root, 'daemon', 'bin', 'portico.js'), 'daemon', ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
// Ctrl-C reaches the whole foreground process group, the daemon included: forwarding it would
// be a second SIGINT, which the daemon takes as "exit now". SIGTERM and SIGHUP (a closed
// terminal) come to this process alone and are passed on as SIGTERM.
process.on('SIGINT', () => undefined);
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => daemon.kill('SIGTERM'));
daemon.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
