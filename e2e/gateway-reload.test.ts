// Hot reload of the whole daemon: edit a temp copy of config/portico.hcl and see the gateway
// serve the new configuration; a broken save keeps the old one; SIGHUP and `portico config reload`.
import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { changed, gatewayConfigCopy, withEndpoint, type GatewayConfigCopy } from './gateway-e2e-config.js';
import { controlQuery, runPortico, startDaemon, type DaemonHandle } from './harness.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(): Promise<{ daemon: DaemonHandle; copy: GatewayConfigCopy }> {
  const copy = await gatewayConfigCopy();
  cleanups.push(() => copy.dispose());
  const daemon = await startDaemon({ args: copy.args });
  cleanups.push(() => daemon.dispose());
  return { daemon, copy };
}

interface Record {
  trigger: string;
  result: string;
  diagnostics: Array<{ file: string | null; line: number | null; column: number | null; text: string }>;
  diff: { summary: string } | null;
}

async function lastReload(daemon: DaemonHandle): Promise<Record | null> {
  const { body } = await controlQuery(daemon, 'config.status', daemon.token);
  return (body as { result: { data: { last: Record | null } } }).result.data.last;
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

describe('gateway hot reload', () => {
  it('serves a saved change within a second, keeps serving through a broken save, and applies the fix', async () => {
    const { daemon, copy } = await start();
    expect(await lastReload(daemon)).toMatchObject({ trigger: 'start', result: 'applied' });
    expect((await get(`${daemon.gatewayUrl}/hello`)).status).toBe(404);

    copy.edit((t) => withEndpoint(t, '/hello', 'hello v1'));
    await expect.poll(() => get(`${daemon.gatewayUrl}/hello`)).toEqual({ status: 200, text: 'hello v1' });
    expect(await lastReload(daemon)).toMatchObject({ trigger: 'file', result: 'applied', diff: { summary: '+1 endpoint (/hello)' } });

    copy.edit((t) => changed(t, t.replace('body = "hello v1"', 'body = "hello v2"\n      bogus = 1')));
    await expect.poll(async () => (await lastReload(daemon))?.result).toBe('rejected');
    const rejected = (await lastReload(daemon))!;
    expect(rejected.diagnostics[0]).toMatchObject({ file: copy.main, line: expect.any(Number), column: expect.any(Number) });
    expect(rejected.diagnostics[0]!.text).toMatch(new RegExp(`^${copy.main.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+,\\d+-\\d+: Unsupported argument;`));
    expect(await get(`${daemon.gatewayUrl}/hello`)).toEqual({ status: 200, text: 'hello v1' });

    copy.edit((t) => changed(t, t.replace('\n      bogus = 1', '')));
    await expect.poll(() => get(`${daemon.gatewayUrl}/hello`)).toEqual({ status: 200, text: 'hello v2' });
  });

  it('reloads on SIGHUP and on `portico config reload`, which prints the result and fails on a bad file', async () => {
    const { daemon, copy } = await start();
    process.kill(daemon.pid()!, 'SIGHUP');
    await expect.poll(async () => (await lastReload(daemon))?.trigger).toBe('signal');
    expect(await lastReload(daemon)).toMatchObject({ result: 'applied', diff: { summary: 'unchanged' } });

    const connection = ['--url', daemon.controlUrl, '--data-dir', daemon.dataDir];
    const ok = await runPortico(['config', 'reload', ...connection]);
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.stdout).toMatch(/^applied in \d+ ms: unchanged\n$/);

    // A broken save and a reload asked for at once: whichever runs, the answer is a rejection.
    copy.edit((t) => changed(t, t.replace('health_path = "/healthz"', 'health_path = 42 +')));
    await expect.poll(async () => (await lastReload(daemon))?.result).toBe('rejected');
    const bad = await runPortico(['config', 'reload', ...connection]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${copy.main}:`);
    expect(bad.stderr).toContain('rejected; the previous configuration keeps serving');
    expect((await get(`${daemon.gatewayUrl}/healthz`)).status).toBe(200);
  });

  it('refuses to start on a bad configuration and prints where the problem is', async () => {
    const copy = await gatewayConfigCopy();
    cleanups.push(() => copy.dispose());
    copy.edit((t) => changed(t, t.replace('backend = "services"', 'backend = "nope"')));
    const daemon = await startDaemon({ args: copy.args, noWait: true });
    cleanups.push(() => daemon.dispose());
    const code = await daemon.exited();
    expect(code).not.toBe(0);
    expect(daemon.logs()).toMatch(new RegExp(`${copy.main.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+,\\d+-\\d+: Undefined backend; backend reference 'nope' is not defined in definitions\\.`));
  });

  it('keeps the connections of a backend a save did not change, and opens new ones for one it changed', async () => {
    const { daemon, copy } = await start();
    // The sockets that carried proxied requests (health checks have connections of their own).
    const proxied = new Set<object>();
    copy.probeServer.on('request', (req: IncomingMessage) => {
      if (req.url !== '/health') proxied.add(req.socket);
    });
    const probe = async (): Promise<void> => {
      expect((await get(`${daemon.gatewayUrl}/probe/x`)).status).toBe(200);
    };
    await expect.poll(async () => (await fetch(`${daemon.gatewayUrl}/probe/x`)).status).toBe(200);
    await probe();
    expect(proxied.size).toBe(1);

    // A save of the other file: the probe backend's block is unchanged, so its pool is kept.
    copy.edit((t) => withEndpoint(t, '/hello', 'hello'));
    await expect.poll(async () => (await lastReload(daemon))?.diff?.summary).toBe('+1 endpoint (/hello)');
    await probe();
    await probe();
    expect(proxied.size).toBe(1);

    // The probe backend itself changed: a new transport, a new connection.
    writeFileSync(copy.probe, changed(readFileSync(copy.probe, 'utf8'), readFileSync(copy.probe, 'utf8').replace('origin     =', 'timeout    = "30s"\n    origin     =')));
    await expect.poll(async () => (await lastReload(daemon))?.diff?.summary).toBe('~1 backend (probe)');
    await probe();
    expect(proxied.size).toBe(2);
  });
});
