// PORTICO_GATEWAY_PROCESSES: the daemon forks serving processes that share the gateway's port.
// Each test looks at the real processes: which one holds each client connection (from /proc),
// what every one of them serves after a save, a failed reload and a crash, the health the
// daemon's checks found, the metrics of all of them, and their stop.
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSamlIdp } from '../daemon/src/testing/login-providers/index.js';
import { controlQuery, freePort, REPO_ROOT, runPortico, startDaemon, waitUntil, type DaemonHandle } from './harness.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The test's backend: `/slow` answers when released, `/health` as `healthy` says, anything else at once. */
async function backend(): Promise<{ port: number; slow: ServerResponse[]; setHealthy(ok: boolean): void }> {
  const slow: ServerResponse[] = [];
  let healthy = true;
  const server: Server = createServer((req, res) => {
    if (req.url === '/slow') slow.push(res);
    else if (req.url === '/health') res.writeHead(healthy ? 200 : 503).end(healthy ? 'ok' : 'down');
    else res.end(`backend ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as AddressInfo).port, slow, setHealthy: (ok) => (healthy = ok) };
}

function configText(version: string, backendPort: number, metricsPort: number, extraServer = ''): string {
  return `server {
  hosts = ["*:\${env.PORTICO_GATEWAY_PORT}"]
  endpoint "/version" {
    response { body = "${version}" }
  }
  endpoint "/**" {
    proxy { backend = "origin" }
  }
}
${extraServer}
definitions {
  backend "origin" {
    origin = "http://127.0.0.1:${backendPort}"
    beta_health {
      path              = "/health"
      interval          = "200ms"
      timeout           = "300ms"
      failure_threshold = 1
    }
  }
}
settings {
  beta_metrics      = true
  beta_metrics_port = ${metricsPort}
}
defaults {
  environment_variables = { PORTICO_GATEWAY_PORT = "8080" }
}
`;
}

interface Setup {
  daemon: DaemonHandle;
  file: string;
  origin: Awaited<ReturnType<typeof backend>>;
  metricsPort: number;
}

async function start(env: Record<string, string> = {}, options: { slowStdout?: boolean } = {}): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'portico-e2e-processes-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const origin = await backend();
  const metricsPort = await freePort();
  const file = join(dir, 'gateway.hcl');
  writeFileSync(file, configText('v1', origin.port, metricsPort));
  const daemon = await startDaemon({ args: ['--mode', 'gateway', '-f', file], env: { PORTICO_GATEWAY_PROCESSES: '2', ...env }, ...options });
  cleanups.push(() => daemon.dispose());
  return { daemon, file, origin, metricsPort };
}

/** The daemon's serving processes: its children running the serving entry. */
function servingPids(daemon: DaemonHandle): number[] {
  const pid = daemon.pid()!;
  let children: string;
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8');
  } catch {
    return [];
  }
  return children
    .split(' ')
    .filter(Boolean)
    .map(Number)
    .filter((child) => {
      try {
        return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('serving-entry.js');
      } catch {
        return false;
      }
    });
}

/** For each client port connected to the gateway's `port`, the pid of the process holding the server side. */
function connectionOwners(port: number, pids: readonly number[]): Map<number, number> {
  const byInode = new Map<string, number>();
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
        if (inode) byInode.set(inode, pid);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  const owners = new Map<number, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const local = parseInt(fields[1]!.split(':')[1]!, 16);
      const remote = parseInt(fields[2]!.split(':')[1]!, 16);
      const owner = byInode.get(fields[9]!);
      if (local === port && owner !== undefined) owners.set(remote, owner);
    }
  }
  return owners;
}

interface Answer {
  status: number;
  text: string;
  localPort: number;
}

/** A kept-alive client connection: each request goes over the same socket, hence to the same process. */
function connection(url: string): { get(path: string): Promise<Answer>; postForm(path: string, form: Record<string, string>): Promise<Answer>; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (path: string, method = 'GET', body?: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const headers = body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(Buffer.byteLength(body)) };
      const req = request(`${url}${path}`, { agent, method, headers }, (res) => {
        // The socket goes back to the agent at the end.
        const localPort = res.socket.localPort ?? 0;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, localPort }));
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    get: (path) => send(path),
    postForm: (path, form) => send(path, 'POST', new URLSearchParams(form).toString()),
    close: () => agent.destroy(),
  };
}

/** Four kept-alive connections and the process holding each (round robin: two each). */
async function connections({ daemon }: { daemon: DaemonHandle }, path = '/version'): Promise<Array<ReturnType<typeof connection> & { pid: number }>> {
  const list = Array.from({ length: 4 }, () => connection(daemon.gatewayUrl));
  cleanups.push(() => list.forEach((c) => c.close()));
  const ports = await Promise.all(list.map(async (c) => (await c.get(path)).localPort));
  const owners = connectionOwners(daemon.gatewayPort, servingPids(daemon));
  return list.map((c, i) => Object.assign(c, { pid: owners.get(ports[i]!) ?? 0 }));
}

async function lastReload(daemon: DaemonHandle): Promise<{ result: string; error: string | null } | null> {
  const { body } = await controlQuery(daemon, 'config.status', daemon.token);
  return (body as { result: { data: { last: { result: string; error: string | null } | null } } }).result.data.last;
}

/** One request on a new connection (the cluster hands each new connection to the next process). */
async function once(url: string): Promise<string> {
  const c = connection(url.replace(/\/version$/, ''));
  try {
    return (await c.get('/version')).text;
  } finally {
    c.close();
  }
}

describe('several gateway serving processes (PORTICO_GATEWAY_PROCESSES=2)', () => {
  it('share the port round robin, and every one of them serves each save; a broken save or a failed one changes none', async () => {
    const setup = await start();
    const pids = servingPids(setup.daemon);
    expect(pids).toHaveLength(2);
    expect(setup.daemon.logs()).toMatch(/gateway serving processes started: 2 \(PORTICO_GATEWAY_PROCESSES\)/);
    const clients = await connections(setup);
    expect(new Set(clients.map((c) => c.pid))).toEqual(new Set(pids));

    // With a method no request can have: every process applies it, one of them says so.
    writeFileSync(setup.file, configText('v2', setup.origin.port, setup.metricsPort).replace('endpoint "/version" {', 'endpoint "/version" {\n    allowed_methods = ["GET", "BREW"]'));
    await waitUntil(async () => (await Promise.all(clients.map((c) => c.get('/version')))).every((r) => r.text === 'v2'), 10_000, () => 'not every process serves v2');
    expect(await lastReload(setup.daemon)).toMatchObject({ result: 'applied' });
    await waitUntil(() => setup.daemon.logs().includes('BREW can never arrive'), 5000, () => 'no warning of the method');
    await new Promise((r) => setTimeout(r, 300));
    expect(setup.daemon.logs().match(/BREW can never arrive/g)).toHaveLength(1);

    // Rejected: the daemon validates before any process sees it.
    writeFileSync(setup.file, configText('v3', setup.origin.port, setup.metricsPort).replace('endpoint "/version" {', 'endpoint "/version" {\n    bogus = 1'));
    await waitUntil(async () => (await lastReload(setup.daemon))?.result === 'rejected', 10_000, () => 'the broken save was not rejected');
    // Failed: valid, but a port of it is taken; each process opened, then closed again, what it could.
    const blocker = createTcpServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => blocker.listen(taken, resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const extra = `server "extra" {\n  hosts = ["*:${taken}"]\n  endpoint "/x" {\n    response { body = "x" }\n  }\n}\n`;
    writeFileSync(setup.file, configText('v4', setup.origin.port, setup.metricsPort, extra));
    await waitUntil(async () => (await lastReload(setup.daemon))?.result === 'failed', 10_000, () => 'the save on a taken port did not fail');
    expect((await lastReload(setup.daemon))?.error).toMatch(new RegExp(`cannot listen on \\*:${taken}: EADDRINUSE`));
    for (const c of clients) expect(await c.get('/version')).toMatchObject({ status: 200, text: 'v2' });
    expect(servingPids(setup.daemon).sort()).toEqual([...pids].sort());
  });

  it("act on the daemon's health checks and add up into one set of metrics", async () => {
    const setup = await start();
    const clients = await connections(setup);
    for (const c of clients) expect(await c.get('/a')).toMatchObject({ status: 200, text: 'backend /a' });

    setup.origin.setHealthy(false);
    // Refused in every process without reaching the backend, as the daemon's check found it.
    await waitUntil(async () => (await Promise.all(clients.map((c) => c.get('/b')))).every((r) => r.status === 502), 10_000, () => 'not every process refused the unhealthy backend');
    setup.origin.setHealthy(true);
    await waitUntil(async () => (await Promise.all(clients.map((c) => c.get('/c')))).every((r) => r.status === 200), 10_000, () => 'not every process used the backend again');

    // 4 + 4 (or more, while waiting) /version and proxied requests went through two processes; the scrape counts them all.
    const metrics = await (await fetch(`http://127.0.0.1:${setup.metricsPort}/metrics`)).text();
    const served = [...metrics.matchAll(/^gateway_client_requests_total\{[^}]*endpoint="\/version"[^}]*\} (\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(served).toBe(4);
    expect(metrics).toMatch(/^gateway_backend_health_checks_total\{service_name="gateway",backend="origin",code="503"\} [1-9]/m);
    expect(metrics).toMatch(/^gateway_backend_up\{service_name="gateway",backend="origin"\} 1$/m);
  });

  it('are replaced when one dies, the new one serving the configuration in force', async () => {
    const setup = await start();
    writeFileSync(setup.file, configText('v2', setup.origin.port, setup.metricsPort));
    await waitUntil(async () => (await lastReload(setup.daemon))?.result === 'applied' && (await once(setup.daemon.gatewayUrl)) === 'v2', 10_000, () => 'v2 was not applied');
    const [victim, survivor] = servingPids(setup.daemon);
    process.kill(victim!, 'SIGKILL');
    const exitLine = new RegExp(`gateway process \\d \\(pid ${victim}\\) exited with signal SIGKILL; starting another`);
    await waitUntil(() => exitLine.test(setup.daemon.logs()), 5000, () => `the exit was not noticed:\n${setup.daemon.logs()}`);
    // The other one serves meanwhile, on every new connection.
    for (let i = 0; i < 3; i++) expect(await once(setup.daemon.gatewayUrl)).toBe('v2');
    await waitUntil(() => setup.daemon.logs().includes('started again'), 15_000, () => `no new process:\n${setup.daemon.logs()}`);
    const now = servingPids(setup.daemon);
    expect(now).toHaveLength(2);
    // The consoles' status says so.
    const { body } = await controlQuery(setup.daemon, 'system.status', setup.daemon.token);
    const gateway = (body as { result: { data: { components: Array<{ name: string; state: string; detail: string | null }> } } }).result.data.components.find((c) => c.name === 'gateway');
    expect(gateway).toMatchObject({ state: 'running', detail: expect.stringMatching(/\(2 processes, 1 restart\)/) });
    expect(setup.daemon.logs()).toMatch(/detail="[^"]*\(1 of 2 processes serving\)/);
    expect(now).toContain(survivor);
    expect(now).not.toContain(victim);
    const clients = await connections(setup);
    expect(new Set(clients.map((c) => c.pid))).toEqual(new Set(now));
    for (const c of clients) expect(await c.get('/version')).toMatchObject({ status: 200, text: 'v2' });
  });

  it('stop with the daemon: requests in flight in each process finish, then all exit', async () => {
    const setup = await start({ PORTICO_SHUTDOWN_TIMEOUT: '20s' });
    const clients = await connections(setup);
    const byProcess = [...new Map(clients.map((c) => [c.pid, c])).values()];
    expect(byProcess).toHaveLength(2);
    const inFlight = byProcess.map((c) => c.get('/slow'));
    await waitUntil(() => setup.origin.slow.length === 2, 5000, () => 'the slow requests did not reach the backend');
    const pids = servingPids(setup.daemon);
    const exited = setup.daemon.stop('SIGTERM', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const res of setup.origin.slow) res.end('finally');
    expect((await Promise.all(inFlight)).map((r) => [r.status, r.text])).toEqual([
      [200, 'finally'],
      [200, 'finally'],
    ]);
    expect(await exited).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });

  it('write whole lines to the stdout they share, also when its reader falls behind', async () => {
    const setup = await start({}, { slowStdout: true });
    const clients = Array.from({ length: 8 }, () => connection(setup.daemon.gatewayUrl));
    cleanups.push(() => clients.forEach((c) => c.close()));
    const path = `/lines/${'p'.repeat(1000)}`;
    await Promise.all(clients.map(async (c) => {
      for (let i = 0; i < 150; i++) expect((await c.get(path)).status).toBe(200);
    }));
    // An access line and a backend line per request, from two processes into one pipe.
    await waitUntil(() => setup.daemon.logs().split(path).length - 1 >= 2400, 10_000, () => `the lines did not all arrive whole: ${setup.daemon.logs().split(path).length - 1} of 2400`);
    const lines = setup.daemon.logs().split('\n').filter((line) => line.includes('/lines/'));
    const access = /^127\.0\.0\.1 - - \[[^\]]+\] "GET http:\/\/127\.0\.0\.1:\d+\/lines\/p{1000}" 200 \d+ [\d.]+ms id=\S+ .*$/;
    const toBackend = /^\[[^\]]+\] backend origin "GET http:\/\/127\.0\.0\.1:\d+\/lines\/p{1000}" 200 [\d.]+ms .*$/;
    expect(lines.filter((line) => !access.test(line) && !toBackend.test(line))).toEqual([]);
    expect(lines.filter((line) => access.test(line))).toHaveLength(1200);
    expect(lines.filter((line) => toBackend.test(line))).toHaveLength(1200);
  });

  it('refuse a SAML response in every process once one of them let someone in with it', async () => {
    const idp = await startSamlIdp({ users: { alice: { password: 'alice-password' } } });
    cleanups.push(() => idp.close());
    const dir = mkdtempSync(join(tmpdir(), 'portico-e2e-processes-saml-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const metadata = join(dir, 'idp-metadata.xml');
    idp.writeMetadata(metadata);
    const daemon = await startDaemon({
      args: ['--mode', 'gateway', '-f', join(REPO_ROOT, 'config', 'examples', 'saml.hcl')],
      env: { PORTICO_GATEWAY_PROCESSES: '2', EXAMPLE_SAML_IDP_METADATA: metadata, EXAMPLE_SESSION_KEY: 'e2e-session-key-0123456789abcdef0123' },
    });
    cleanups.push(() => daemon.dispose());
    const clients = await connections({ daemon }, '/');
    const first = clients[0]!;
    const other = clients.find((c) => c.pid !== first.pid)!;
    expect(other).toBeDefined();
    // The SAMLRequest the protected page redirects to, as a browser would carry it to the IdP.
    const redirect = await fetch(`${daemon.gatewayUrl}/`, { redirect: 'manual' });
    const authnRequest = new URL(redirect.headers.get('location') ?? '').searchParams.get('SAMLRequest') ?? '';
    const login = await idp.login(`${idp.ssoUrl}?SAMLRequest=${encodeURIComponent(authnRequest)}`, 'alice', 'alice-password');
    const acs = new URL(login.acsUrl).pathname;
    expect((await first.postForm(acs, { SAMLResponse: login.samlResponse })).status).toBe(303);
    const replayed = await other.postForm(acs, { SAMLResponse: login.samlResponse });
    expect(replayed.status).toBe(403);
    await expect.poll(() => daemon.logs()).toMatch(/"POST [^"]*\/saml\/acs" 403 .*error_type=saml message=".*already used to log in/);
  });

  it('serve https_dev_proxy with one certificate, made once by the daemon', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-e2e-processes-tls-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const [plain, tls] = [await freePort(), await freePort()];
    const file = join(dir, 'gateway.hcl');
    writeFileSync(file, `server {\n  hosts = ["*:${plain}"]\n  endpoint "/hello" {\n    response { body = "hello" }\n  }\n}\nsettings {\n  https_dev_proxy = ["${tls}:${plain}"]\n}\n`);
    const daemon = await startDaemon({ args: ['--mode', 'gateway', '-f', file], env: { PORTICO_GATEWAY_PROCESSES: '2' } });
    cleanups.push(() => daemon.dispose());
    // New connections go to each process in turn: every one shows the same certificate.
    const fingerprints = new Set<string>();
    for (let i = 0; i < 4; i++) {
      fingerprints.add(
        await new Promise<string>((resolve, reject) => {
          const socket = tlsConnect({ host: '127.0.0.1', port: tls, rejectUnauthorized: false }, () => {
            resolve(socket.getPeerCertificate().fingerprint256);
            socket.end();
          });
          socket.on('error', reject);
        }),
      );
    }
    expect(fingerprints.size).toBe(1);
    expect(daemon.logs().match(/https_dev_proxy: generated a self-signed certificate/g)).toHaveLength(1);
  });

  it("end with the daemon when its configuration cannot start: it exits 1 and leaves no process behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portico-e2e-processes-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.hcl');
    // Valid HCL whose jwt key file is missing: the daemon forks its processes, then the first load fails.
    writeFileSync(
      file,
      `server {
  hosts = ["*:\${env.PORTICO_GATEWAY_PORT}"]
  endpoint "/**" {
    access_control = ["token"]
    response { body = "secret" }
  }
}
definitions {
  jwt "token" {
    signature_algorithm = "RS256"
    key_file            = "missing.pem"
  }
}
`,
    );
    const daemon = await startDaemon({ args: ['--mode', 'gateway', '-f', file], env: { PORTICO_GATEWAY_PROCESSES: '2' }, noWait: true });
    cleanups.push(() => daemon.dispose());
    expect(await daemon.exited()).toBe(1);
    expect(daemon.logs()).toMatch(/gateway serving processes started: 2/);
    expect(daemon.logs()).toMatch(/cannot start: gateway: .*key_file "missing\.pem"/s);
    // Its processes carry the daemon's data dir in their environment.
    const left = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && processEnvironment(pid).includes(`PORTICO_DATA_DIR=${daemon.dataDir}\0`));
    expect(left).toEqual([]);
  });

  it('refuses a bad count with the variable named', async () => {
    const r = await runPortico(['daemon', '--mode', 'gateway'], { env: { PORTICO_GATEWAY_PROCESSES: 'lots' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PORTICO_GATEWAY_PROCESSES: must be an integer from 1 to 64 or 'auto' \(one per core\), got 'lots'/);
  });
});

function processEnvironment(pid: string): string {
  try {
    return `${readFileSync(`/proc/${pid}/environ`, 'latin1')}\0`;
  } catch {
    return '';
  }
}
