#!/usr/bin/env node
// `npm run example -- oidc|saml`: the local login providers (OpenID Provider, SAML IdP, token
// endpoint) and the daemon with config/examples/<name>.hcl, in one terminal; Ctrl-C stops both.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDependencies } from './ensure-deps.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const name = process.argv[2];
const examples = ['oidc', 'saml'];
if (!examples.includes(name ?? '')) {
  console.error(`usage: npm run example -- <${examples.join('|')}>\n  starts the local login providers and the daemon with config/examples/<name>.hcl on http://localhost:8080/`);
  process.exit(2);
}
if (!ensureDependencies(root)) process.exit(1);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
if (spawnSync(npm, ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);

const dataDir = process.env.PORTICO_DATA_DIR ?? join(root, 'data', 'examples');
const metadata = join(dataDir, 'saml-idp-metadata.xml');
const providers = spawn(process.execPath, [join(root, 'daemon', 'dist', 'testing', 'login-providers', 'main.js'), '--saml-metadata-out', metadata], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
let daemon = null;
let stopping = false;

// The daemon starts once the providers said where they are (and the IdP metadata is written).
let said = '';
providers.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  said += chunk.toString();
  if (daemon === null && !stopping && said.includes('Token endpoint') && existsSync(metadata)) startDaemon();
});
providers.on('exit', (code) => {
  if (!stopping) console.error(`example: the login providers stopped (exit ${code}); is a port of 9411-9413 taken?`);
  stop(code ?? 1);
});

function startDaemon() {
  daemon = spawn(process.execPath, [join(root, 'daemon', 'bin', 'portico.js'), 'daemon', '-f', join(root, 'config', 'examples', `${name}.hcl`)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, PORTICO_DATA_DIR: dataDir, EXAMPLE_SAML_IDP_METADATA: metadata },
  });
  daemon.on('exit', (code) => stop(code ?? 1));
  console.log(`example: open http://localhost:8080/ and sign in as alice / alice-password (Ctrl-C stops)`);
}

/** Stops both; `forward` false when the terminal's Ctrl-C already reached them (a second signal would hurry the daemon). */
function stop(code, forward = true) {
  if (stopping) return;
  stopping = true;
  if (forward) for (const child of [daemon, providers]) if (child && child.exitCode === null) child.kill('SIGTERM');
  const done = () => [daemon, providers].every((c) => !c || c.exitCode !== null || c.signalCode !== null);
  const timer = setInterval(() => {
    if (done()) {
      clearInterval(timer);
      process.exit(code);
    }
  }, 50);
}
// Ctrl-C reaches the whole process group; the children stop on their own, this only waits for them.
process.on('SIGINT', () => stop(0, false));
process.on('SIGTERM', () => stop(0));
// A closed terminal sends SIGHUP to the group: the daemon would take it as "reload" and outlive this script.
process.on('SIGHUP', () => stop(0));
