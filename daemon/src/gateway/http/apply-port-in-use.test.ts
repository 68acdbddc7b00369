import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, send, startGateway, versionConfig } from './testing/test-gateway.js';

const blockers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(blockers.splice(0).map((b) => new Promise((resolve) => b.close(resolve))));
});


describe('apply() with a port already in use', () => {
  it('throws a clear error and keeps the old runtime serving on its listeners', async () => {
    const [mine, taken, extra] = [await freePort(), await freePort(), await freePort()];
    const blocker = createServer();
    blockers.push(blocker);
    await new Promise<void>((resolve) => blocker.listen(taken, '127.0.0.1', resolve));
    const gw = await startGateway({ 'portico.hcl': versionConfig('old', [mine]) });
    const next = await gw.loadConfig({ 'portico.hcl': versionConfig('new', [mine, extra, taken]) });
    // The error names the block that asked for the port, where it is.
    await expect(gw.server.apply(next)).rejects.toThrow(
      new RegExp(`^gateway: cannot listen on 127\\.0\\.0\\.1:${taken}: EADDRINUSE; another process \\(or server block\\) already listens there; free the port or change the hosts of server \\(/.*/portico\\.hcl:2\\)\\.$`),
    );
    expect((await send(gw.url('/', mine), '/version')).text).toBe('old');
    // The listener opened for the failed apply was closed again, and the new backends too.
    await expect(send(`http://127.0.0.1:${extra}`, '/version')).rejects.toThrow(/ECONNREFUSED/);
    expect(gw.backendSets[1]!.closed).toBe(true);
    expect(gw.backendSets[0]!.closed).toBe(false);
    expect(gw.server.addresses()).toEqual([`127.0.0.1:${mine}`]);
  });
});
