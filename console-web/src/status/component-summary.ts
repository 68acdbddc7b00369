import type { ComponentState, ComponentStatus } from '@portico/daemon/control';

const ORDER: readonly ComponentState[] = ['failed', 'stopping', 'starting', 'running', 'stopped', 'registered'];

/** `6 running · 1 failed`: counts per state, problems first. */
export function summariseComponents(components: readonly ComponentStatus[]): string {
  const counts = new Map<ComponentState, number>();
  for (const c of components) counts.set(c.state, (counts.get(c.state) ?? 0) + 1);
  return ORDER.filter((s) => counts.has(s))
    .map((s) => `${counts.get(s)} ${s}`)
    .join(' · ');
}
