import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresReachable } from '../daemon/src/store/testing/databases.js';
import { controlQuery, daemonDatabase, freePort, runPortico, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

interface Status {
  mode: string;
  pid: number;
  store: { kind: string; schemaVersion: number };
  components: Array<{ name: string; state: string; detail: string | null }>;
}

const started: DaemonHandle[] = [];
async function daemon(opts: Parameters<typeof startDaemon>[0] = {}): Promise<DaemonHandle> {
  const d = await startDaemon(opts);
  started.push(d);
  return d;
}
afterAll(async () => {
  await Promise.all(started.map((d) => d.dispose()));
});

describe('portico CLI', () => {
  it('prints help for every command and exits 0', async () => {
    for (const args of [['--help'], ['daemon', '--help'], ['tui', '--help'], ['config', '--help'], ['config', 'check', '--help']]) {
      const r = await runPortico(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/Usage: portico/);
    }
  });

  it.each([
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['constructor'], /unknown command 'constructor'/],
    [['daemon', '--frob'], /unknown option '--frob'/],
    [['daemon', '--mode', 'turbo'], /unknown mode 'turbo'; choose one of all, gateway, cds, callback-worker, ingest-worker, retention-worker/],
    [['tui', '--colour'], /unknown option '--colour'/],
    [['config', 'lint'], /unknown command 'config lint'/],
  ])('refuses %j with a clear message and exit 2', async (args, message) => {
    const r = await runPortico(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toMatch(/Usage: portico/);
  });

  it('loads only the command it runs: help, the version and a bad command load none', async () => {
    // A module hook (node:module register) writes down every module of the build that is loaded.
    const dir = mkdtempSync(join(tmpdir(), 'portico-loads-'));
    writeFileSync(join(dir, 'hooks.mjs'), `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (resolved.url.includes('/daemon/dist/')) appendFileSync(process.env.PORTICO_TEST_LOADED, resolved.url + '\\n');
  return resolved;
}
`);
    writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module';\nregister('./hooks.mjs', import.meta.url);\n`);
    const loaded = async (args: string[]): Promise<string[]> => {
      const list = join(dir, `${args.join('_')}.txt`);
      writeFileSync(list, '');
      const r = await runPortico(args, { env: { NODE_OPTIONS: `--import ${pathToFileURL(join(dir, 'register.mjs')).href}`, PORTICO_TEST_LOADED: list } });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(args[0] === 'frobnicate' ? 2 : 0);
      return readFileSync(list, 'utf8').split('\n').filter(Boolean);
    };
    const commandsOf = (urls: string[]) => urls.filter((url) => url.includes('/dist/cli/commands/')).map((url) => url.replace(/.*\/dist\/cli\/commands\//, ''));
    for (const args of [['--help'], ['--version'], ['frobnicate']]) {
      const urls = await loaded(args);
      expect(urls.some((url) => url.endsWith('/dist/cli/main.js')), args.join(' ')).toBe(true);
      expect(commandsOf(urls), args.join(' ')).toEqual([]);
    }
    expect(commandsOf(await loaded(['keys', '--help']))).toEqual(['keys.js']);
    const daemonHelp = await loaded(['daemon', '--help']);
    expect(commandsOf(daemonHelp)).toEqual(['daemon.js']);
    // The daemon itself loads only when it runs.
    expect(daemonHelp.filter((url) => url.endsWith('/dist/main/daemon.js'))).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('config check reports syntax and structure errors with their positions, and passes a good file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-check-'));
    writeFileSync(join(dir, 'good.hcl'), 'server {\n  hosts = ["*:8080"]\n}\n');
    writeFileSync(join(dir, 'syntax.hcl'), 'server {\n  hosts = [\n}\n');
    writeFileSync(join(dir, 'structure.hcl'), 'server {\n  hostz = ["*:8080"]\n  endpoint {}\n}\n');
    const good = await runPortico(['config', 'check', join(dir, 'good.hcl')]);
    expect(good.code).toBe(0);
    const bad = await runPortico(['config', 'check', join(dir, 'syntax.hcl'), join(dir, 'structure.hcl')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/syntax\.hcl:\d+,\d+-\d+: /);
    expect(bad.stderr).toContain(`${join(dir, 'structure.hcl')}:2,3-8: Unsupported argument; An argument named "hostz" is not expected here.`);
    expect(bad.stderr).toContain(`${join(dir, 'structure.hcl')}:3,3-11: Missing pattern for endpoint; All endpoint blocks must have 1 labels (pattern).`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('config check loads several files and directories as one configuration, as the daemon would', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-check-'));
    const conf = join(dir, 'conf.d');
    mkdirSync(conf);
    writeFileSync(join(dir, 'routes.hcl'), 'server {\n  endpoint "/api/**" {\n    proxy {\n      backend = "api"\n    }\n  }\n}\n');
    writeFileSync(join(conf, 'backends.hcl'), 'definitions {\n  backend "api" {\n    origin = env.API_ORIGIN\n    timeout = "30s"\n  }\n}\n');
    writeFileSync(join(conf, 'defaults.hcl'), 'defaults {\n  environment_variables = { API_ORIGIN = "http://127.0.0.1:9" }\n}\n');
    const merged = await runPortico(['config', 'check', join(dir, 'routes.hcl'), conf]);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    expect(merged.stdout.trim()).toBe('ok');

    // Alone, the routes name a backend nothing defines; with a bad environment, the origin is refused where it is written.
    const alone = await runPortico(['config', 'check', join(dir, 'routes.hcl')]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toContain(`${join(dir, 'routes.hcl')}:4,17-22: Undefined backend; backend reference 'api' is not defined in definitions.`);
    const badEnv = await runPortico(['config', 'check', join(dir, 'routes.hcl'), conf], { env: { API_ORIGIN: 'ftp://x' } });
    expect(badEnv.code).toBe(1);
    expect(badEnv.stderr).toContain(`${join(conf, 'backends.hcl')}:3,14-28: Invalid backend.origin value; valid http scheme required for origin: "ftp://x"`);
    rmSync(dir, { recursive: true, force: true });
  });

  it('config check passes a configuration with routes that can never serve, printing the warnings the daemon logs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-check-'));
    const file = join(dir, 'never.hcl');
    writeFileSync(
      file,
      'server {\n  access_control = ["ba"]\n  endpoint "/both" {\n    access_control = ["tok"]\n    allowed_methods = ["GET", "BREW"]\n    response { body = "x" }\n  }\n}\n' +
        'definitions {\n  basic_auth "ba" { password = "pw" }\n  jwt "tok" {\n    signature_algorithm = "HS256"\n    key = "k"\n  }\n}\n',
    );
    const r = await runPortico(['config', 'check', file]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('ok (2 warnings)');
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^warning: endpoint "/both" \\(${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3\\): allowed_methods BREW can never arrive`)),
      `warning: endpoint "/both" (${file}:3) can never be passed: its access controls "ba" (basic_auth) and "tok" (jwt, a Bearer token) both read the Authorization header, which a request has once, so every request is refused with 401; read the jwt's token from another header, a cookie or token_value, or leave one of them out here (disable_access_control)`,
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('config check reports model errors of every kind in one run, in file order, with their positions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-check-'));
    writeFileSync(
      join(dir, 'model.hcl'),
      'server "a" {\n  hosts = ["*:8080"]\n  endpoint "/x" {\n  }\n}\nserver "b" {\n}\nsettings {\n  log_format = "xml"\n  default_port = "http"\n}\n',
    );
    const r = await runPortico(['config', 'check', join(dir, 'model.hcl')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const file = join(dir, 'model.hcl');
    // Each problem's line; the source lines under each are config-diagnostics.test.ts's.
    expect(r.stderr.trim().split('\n').filter((l) => l.startsWith(file))).toEqual([
      `${file}:3,3-16: Missing a 'default' proxy or request definition, or a response block; Each endpoint must produce a response: add a response block, or an unlabelled proxy or request block.`,
      `${file}:6,1-11: Missing required argument; The argument "hosts" is required when there is more than one server block (server "b").`,
      `${file}:9,16-21: Invalid attribute value; Invalid value for attribute "log_format": must be one of "common", "json", got "xml".`,
      `${file}:10,18-24: Incorrect attribute value type; Inappropriate value for attribute "default_port": a number is required.`,
    ]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('config check fails with exit 1 for a file that is not there', async () => {
    const r = await runPortico(['config', 'check', 'no/such/file.hcl']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no\/such\/file\.hcl/);
  });
});

describe('portico daemon', () => {
  it('starts on the embedded defaults, creates a private token, and serves status only with it', async () => {
    const d = await daemon();
    const tokenFile = join(d.dataDir, 'control.token');
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(d.logs()).not.toContain(d.token);

    const ok = await controlQuery(d, 'system.status', d.token);
    expect(ok.status).toBe(200);
    const status = (ok.body as { result: { data: Status } }).result.data;
    expect(status.mode).toBe('all');
    expect(status.pid).toBe(d.pid());
    expect(status.store.kind).toBe('sqlite');
    expect(status.store.schemaVersion).toBeGreaterThanOrEqual(1);
    // Areas add components as they land; whatever this build has must all be running, store first, control last.
    expect(status.components.every((c) => c.state === 'running'), JSON.stringify(status.components)).toBe(true);
    expect(status.components[0]?.name).toBe('store');
    expect(status.components.at(-1)?.name).toBe('control');

    expect((await controlQuery(d, 'system.status', null)).status).toBe(401);
    expect((await controlQuery(d, 'system.status', 'not-the-token')).status).toBe(401);

    const page = await fetch(`${d.controlUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('exits 0 on SIGTERM and on SIGINT, within the shutdown timeout', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const d = await daemon({ env: { PORTICO_SHUTDOWN_TIMEOUT: '5s' } });
      // Exit 0 means every component stopped within PORTICO_SHUTDOWN_TIMEOUT (1 otherwise).
      expect(await d.stop(signal)).toBe(0);
      expect(d.logs()).toMatch(/component stopped[\s\S]*\bstopped\b/);
    }
  });

  it('a stop signal while starting is acknowledged at once; the component starting finishes, the rest never start, and it stops cleanly', async () => {
    if (!(await postgresReachable())) return;
    const database = await daemonDatabase('postgres');
    // The store's connection goes through a proxy that holds it until released: the store
    // component is still starting when the signal comes.
    const target = new URL(database.env.PORTICO_DATABASE_URL!);
    const held: Array<{ client: Socket; release(): void }> = [];
    const proxy = createServer((client) => {
      client.pause();
      held.push({
        client,
        release() {
          const upstream = connect(Number(target.port || 5432), target.hostname);
          client.pipe(upstream).pipe(client);
          client.resume();
          client.on('error', () => upstream.destroy());
          upstream.on('error', () => client.destroy());
        },
      });
    }).listen(0, '127.0.0.1');
    await new Promise((r) => proxy.once('listening', r));
    try {
      const url = new URL(target);
      url.port = String((proxy.address() as { port: number }).port);
      const d = await daemon({ env: { ...database.env, PORTICO_DATABASE_URL: url.toString() }, noWait: true });
      await waitUntil(() => held.length > 0, 20_000, () => `the store never connected:\n${d.logs()}`);
      process.kill(d.pid()!, 'SIGTERM');
      await waitUntil(() => d.logs().includes('SIGTERM while starting'), 10_000, () => `no word of the signal while starting:\n${d.logs()}`);
      for (const h of held.splice(0)) h.release();
      // Connections the pool opens after the release go straight through.
      proxy.on('connection', () => held.splice(0).forEach((h) => h.release()));
      expect(await d.exited()).toBe(0);
      const logs = d.logs();
      expect(logs).not.toContain('ready: ');
      expect(logs).toMatch(/SIGTERM while starting[\s\S]*\bstopping\b[\s\S]*\bstopped\b/);
      // Only the store ran: no other component started, so none had to stop.
      expect(logs.match(/component stopped/g) ?? []).toHaveLength(1);
    } finally {
      proxy.close();
      for (const h of held) h.client.destroy();
      await database.drop();
    }
  });

  it('keeps serving when the reader of its stdout goes away (EPIPE), says so on stderr, and still stops cleanly', async () => {
    const d = await daemon();
    d.closeStdout();
    // Each request writes an access line to the closed stdout.
    for (let i = 0; i < 20; i += 1) await (await fetch(`${d.gatewayUrl}/`)).arrayBuffer();
    await expect.poll(() => d.logs(), { timeout: 10_000 }).toContain('portico: standard output was closed (EPIPE); log lines written there are dropped from now on');
    expect((await controlQuery(d, 'system.status', d.token)).status).toBe(200);
    expect(await d.stop('SIGTERM')).toBe(0);
  });

  it('reports a port already in use, naming the component, and exits 1', async () => {
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      const d = await daemon({ env: { PORTICO_CONTROL_ADDR: `127.0.0.1:${port}` }, noWait: true });
      expect(await d.exited()).toBe(1);
      expect(d.logs()).toMatch(/cannot start: control: cannot listen on 127\.0\.0\.1:\d+: address already in use/);
      expect(d.logs()).toMatch(/\[store\] component stopped/);
    } finally {
      blocker.close();
    }
  });

  it('exits 1 when cluster discovery cannot listen in --mode cds, leaving no watcher to keep it running', async () => {
    const port = await freePort();
    const blocker = createServer().listen(port, '127.0.0.1');
    await new Promise((r) => blocker.once('listening', r));
    try {
      // In this mode discovery watches the gateway's config files itself, before it listens.
      const d = await daemon({ args: ['--mode', 'cds', '-f', 'config/portico.hcl'], env: { PORTICO_CDS_ADDR: `127.0.0.1:${port}` }, noWait: true });
      expect(await d.exited()).toBe(1);
      expect(d.logs()).toMatch(/cannot start: cds: cluster discovery: cannot listen on 127\.0\.0\.1:\d+/);
    } finally {
      blocker.close();
    }
  });

  it('refuses a bad environment with the variable named', async () => {
    const r = await runPortico(['daemon'], { env: { PORTICO_SHUTDOWN_TIMEOUT: 'soon' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PORTICO_SHUTDOWN_TIMEOUT: 'soon' is not a duration/);
  });

  it('refuses a configuration file it cannot read', async () => {
    const d = await daemon({ args: ['-f', 'no/such.hcl'], noWait: true });
    expect(await d.exited()).toBe(1);
    expect(d.logs()).toMatch(/configuration file no\/such\.hcl: not found/);
  });

  it('uses PostgreSQL when PORTICO_DATABASE_URL is set', async () => {
    if (!(await postgresReachable())) return;
    const database = await daemonDatabase('postgres');
    try {
      const d = await daemon({ env: database.env });
      const status = ((await controlQuery(d, 'system.status', d.token)).body as { result: { data: Status } }).result.data;
      expect(status.store.kind).toBe('postgres');
      expect(status.store.schemaVersion).toBeGreaterThanOrEqual(1);
      expect(await d.stop()).toBe(0);
      const store = await database.open(d.dataDir);
      try {
        const boots = await store.all<{ mode: string; stopped_at: number | null }>('SELECT mode, stopped_at FROM daemon_boots');
        expect(boots).toHaveLength(1);
        expect(boots[0]?.stopped_at).not.toBeNull();
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });
});
