import type { BackendView } from '@portico/daemon/control';

/** What the Backends view keeps in the address: `/backends?q=orders&state=unhealthy&backend=orders`. */
export const BACKENDS_URL = { q: '', state: '', backend: '' };

/** The states a backend can be filtered by: its health state, or `unchecked` without beta_health. */
export const BACKEND_STATES = ['healthy', 'degraded', 'unhealthy', 'unknown', 'unchecked'] as const;

export function backendStateOf(b: Pick<BackendView, 'health'>): string {
  return b.health.checked ? b.health.state : 'unchecked';
}

/** Backends whose name or origin contains `text` (any case), in `state` when one is given. */
export function filterBackends<B extends Pick<BackendView, 'name' | 'origin' | 'health'>>(backends: readonly B[], text: string, state: string): B[] {
  const wanted = text.trim().toLowerCase();
  return backends.filter((b) => (state === '' || backendStateOf(b) === state) && (wanted === '' || b.name.toLowerCase().includes(wanted) || (b.origin ?? '').toLowerCase().includes(wanted)));
}
