import { describe, expect, it } from 'vitest';
import { freePort, send, startGateway, versionConfig } from './testing/test-gateway.js';

// Several serving processes switch together: each prepares (builds, opens new ports), then all
// commit, or all abort when one could not.

describe('GatewayServer.prepare', () => {
  it('opens the new ports but serves the old configuration until commit', async () => {
    const [mine, extra] = [await freePort(), await freePort()];
    const gw = await startGateway({ 'portico.hcl': versionConfig('old', [mine]) });
    const prepared = await gw.server.prepare(await gw.loadConfig({ 'portico.hcl': versionConfig('new', [mine, extra]) }));
    expect((await send(gw.url('/', mine), '/version')).text).toBe('old');
    prepared.commit();
    expect((await send(gw.url('/', mine), '/version')).text).toBe('new');
    expect((await send(`http://127.0.0.1:${extra}`, '/version')).text).toBe('new');
  });

  it('abort closes what it opened and closes its backends; the old configuration goes on serving', async () => {
    const [mine, extra] = [await freePort(), await freePort()];
    const gw = await startGateway({ 'portico.hcl': versionConfig('old', [mine]) });
    const prepared = await gw.server.prepare(await gw.loadConfig({ 'portico.hcl': versionConfig('new', [mine, extra]) }));
    await prepared.abort();
    expect((await send(gw.url('/', mine), '/version')).text).toBe('old');
    await expect(send(`http://127.0.0.1:${extra}`, '/version')).rejects.toThrow(/ECONNREFUSED/);
    expect(gw.backendSets.at(-1)!.closed).toBe(true);
    expect(gw.server.addresses()).toEqual([`127.0.0.1:${mine}`]);
  });

  it('holds the next apply until the prepared one is committed, so they never cross', async () => {
    const mine = await freePort();
    const gw = await startGateway({ 'portico.hcl': versionConfig('v1', [mine]) });
    const prepared = await gw.server.prepare(await gw.loadConfig({ 'portico.hcl': versionConfig('v2', [mine]) }));
    let applied = false;
    const next = gw.server.apply(await gw.loadConfig({ 'portico.hcl': versionConfig('v3', [mine]) })).then(() => (applied = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(applied).toBe(false);
    prepared.commit();
    await next;
    expect((await send(gw.url('/', mine), '/version')).text).toBe('v3');
  });
});
