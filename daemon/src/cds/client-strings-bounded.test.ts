// A proxy cannot make the daemon keep (and every console read) megabytes: node id and a NACK's
// error detail are kept up to a bound, cut with `…`.
import { describe, expect, it } from 'vitest';
import { MAX_NACK_MESSAGE_CHARS, MAX_NODE_CHARS } from './messages.js';
import { backendsHcl, openDelta, openSotw, startCds } from './testing/cds-fixture.js';

describe('strings a discovery client sends', () => {
  it('are kept up to a bound on SotW and delta streams', async () => {
    const cds = await startCds();
    await cds.apply(backendsHcl({ a: '    origin = "http://10.0.0.1"' }));
    const huge = 'x'.repeat(200_000);
    const sotw = openSotw(cds.address);
    sotw.send({ node: { id: `sotw-${huge}`, cluster: huge } });
    const first = await sotw.nth(1);
    sotw.send({ response_nonce: first.nonce, error_detail: { code: 3, message: `bad: ${huge}` } });
    const delta = openDelta(cds.address);
    delta.send({ node: { id: `delta-${huge}` } });
    const firstDelta = await delta.nth(1);
    delta.send({ response_nonce: firstDelta.nonce, error_detail: { code: 3, message: `bad: ${huge}` } });

    await expect.poll(() => cds.registry.list().filter((c) => c.lastNack).length).toBe(2);
    for (const client of cds.registry.list()) {
      expect(client.nodeId).toHaveLength(MAX_NODE_CHARS);
      expect(client.nodeId).toMatch(new RegExp(`^${client.kind}-x+…$`));
      expect(client.lastNack?.message).toHaveLength(MAX_NACK_MESSAGE_CHARS);
      expect(client.lastNack?.message).toMatch(/^bad: x+…$/);
    }
    expect(cds.registry.list().find((c) => c.kind === 'sotw')?.nodeCluster).toHaveLength(MAX_NODE_CHARS);
  });
});
