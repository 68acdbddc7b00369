import type { BackendView } from '@portico/daemon/control';
import { describe, expect, it } from 'vitest';
import { applyUpdate, mergeRead } from './backend-updates';

const backend = (name: string, state: BackendView['health']['state'], lastCheckAt: string | null): BackendView => ({
  name, origin: 'http://x', anonymous: false, useWhenUnhealthy: false, usedBy: [],
  health: { state, lastCheckAt, failures: 0, latencyMs: 1, error: '', checked: true, since: null },
});

describe('backend updates', () => {
  it('applies a live update and puts a state change on top of the timeline', () => {
    const data = { backends: [backend('a', 'healthy', '2026-01-01T00:00:01Z'), backend('b', 'healthy', null)], timeline: [] };
    const health = { ...data.backends[0]!.health, state: 'unhealthy' as const, lastCheckAt: '2026-01-01T00:00:02Z' };
    const next = applyUpdate(data, { id: 'x:1', backend: 'a', health, change: { backend: 'a', from: 'healthy', to: 'unhealthy', at: '2026-01-01T00:00:02Z', error: 'refused' } });
    expect(next.backends.map((b) => b.health.state)).toEqual(['unhealthy', 'healthy']);
    expect(next.timeline).toHaveLength(1);
  });

  it('keeps a live check newer than a read that was under way', () => {
    const shown = { backends: [backend('a', 'unhealthy', '2026-01-01T00:00:05Z')], timeline: [{ backend: 'a', from: 'healthy' as const, to: 'unhealthy' as const, at: '2026-01-01T00:00:05Z', error: '' }] };
    const read = { backends: [backend('a', 'healthy', '2026-01-01T00:00:03Z')], timeline: [] };
    const merged = mergeRead(shown, read);
    expect(merged.backends[0]!.health.state).toBe('unhealthy');
    expect(merged.timeline).toHaveLength(1);
  });
});
