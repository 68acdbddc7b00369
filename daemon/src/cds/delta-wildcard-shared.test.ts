// Wildcard delta streams share what the snapshot holds (versions, encoded diffs); what one
// stream did on its own (names it asked for, names it dropped, leaving wildcard) still counts.
import { describe, expect, it } from 'vitest';
import { backendsHcl, openDelta, startCds, type ClientDeltaResponse } from './testing/cds-fixture.js';

const origin = (ip: string): string => `    origin = "http://${ip}"`;
const names = (r: ClientDeltaResponse): string[] => r.resources.map((x) => x.name);
const changes = (r: ClientDeltaResponse) => ({ version: r.system_version_info, resources: r.resources.map((x) => [x.name, x.version]), removed: r.removed_resources });

describe('DeltaClusters wildcard streams in sync', () => {
  it('get the same changes per snapshot, while a stream that also named a missing cluster hears about it once', async () => {
    const cds = await startCds();
    await cds.apply(backendsHcl({ a: origin('10.0.0.1'), b: origin('10.0.0.2') }));
    const plain = [openDelta(cds.address), openDelta(cds.address)];
    const named = openDelta(cds.address);
    for (const s of plain) s.send({ node: { id: 'envoy' } });
    named.send({ node: { id: 'envoy-named' }, resource_names_subscribe: ['*', 'ghost'] });
    const firsts = await Promise.all([...plain, named].map((s) => s.nth(1)));
    for (const f of firsts) expect(names(f)).toEqual(['a', 'b']);
    expect(firsts.map((f) => f.removed_resources)).toEqual([[], [], ['ghost']]);
    expect(new Set(firsts.map((f) => f.nonce)).size).toBe(3);

    // b changes, a is removed, c appears: the same for every stream.
    await cds.apply(backendsHcl({ b: origin('10.0.0.7'), c: origin('10.0.0.3') }));
    const seconds = await Promise.all([...plain, named].map((s) => s.nth(2)));
    expect(changes(seconds[0]!)).toEqual({ version: cds.catalog.current.version, resources: ['b', 'c'].map((n) => [n, cds.catalog.current.byName.get(n)!.version]), removed: ['a'] });
    for (const s of seconds.slice(1)) expect(changes(s)).toEqual(changes(seconds[0]!));

    // a comes back and ghost appears: a to everyone (it was removed), ghost to everyone (wildcard).
    await cds.apply(backendsHcl({ a: origin('10.0.0.1'), b: origin('10.0.0.7'), c: origin('10.0.0.3'), ghost: origin('10.0.0.9') }));
    for (const s of [...plain, named]) expect(names(await s.nth(3))).toEqual(['a', 'ghost']);
    expect([...plain, named].map((s) => s.responses.length)).toEqual([3, 3, 3]);
  });

  it('resends a name dropped while in wildcard, and after leaving and rejoining wildcard only what changed meanwhile', async () => {
    const cds = await startCds();
    await cds.apply(backendsHcl({ a: origin('10.0.0.1'), b: origin('10.0.0.2'), c: origin('10.0.0.3') }));
    const stream = openDelta(cds.address);
    stream.send({ node: { id: 'envoy-1' }, resource_names_subscribe: ['*'] });
    const first = await stream.nth(1);
    expect(names(first)).toEqual(['a', 'b', 'c']);

    stream.send({ response_nonce: first.nonce, resource_names_unsubscribe: ['b'] });
    const second = await stream.nth(2);
    expect(names(second)).toEqual(['b']);

    stream.send({ response_nonce: second.nonce, resource_names_unsubscribe: ['*'] });
    await expect.poll(() => cds.registry.list()[0]?.subscriptions.wildcard).toBe(false);
    await cds.apply(backendsHcl({ a: origin('10.0.0.5'), b: origin('10.0.0.2'), c: origin('10.0.0.3') }));

    stream.send({ response_nonce: second.nonce, resource_names_subscribe: ['*'] });
    const third = await stream.nth(3);
    expect(names(third)).toEqual(['a']);
    expect(third.system_version_info).toBe(cds.catalog.current.version);
    expect(stream.responses).toHaveLength(3); // nothing was sent while out of wildcard
  });
});
