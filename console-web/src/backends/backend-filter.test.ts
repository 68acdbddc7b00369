import type { BackendView } from '@portico/daemon/control';
import { describe, expect, it } from 'vitest';
import { filterBackends } from './backend-filter';

const backend = (name: string, origin: string | null, state: BackendView['health']['state'], checked = true) => ({ name, origin, health: { state, checked } }) as BackendView;
const ALL = [backend('users', 'http://users.internal:8080', 'healthy'), backend('orders', 'https://orders.example.com', 'unhealthy'), backend('static', 'http://files.internal', 'unknown', false)];

describe('backends filter', () => {
  it('matches words of the name or the origin, and the state (unchecked without beta_health)', () => {
    expect(filterBackends(ALL, 'INTERNAL', '').map((b) => b.name)).toEqual(['users', 'static']);
    expect(filterBackends(ALL, '', 'unhealthy').map((b) => b.name)).toEqual(['orders']);
    expect(filterBackends(ALL, '', 'unchecked').map((b) => b.name)).toEqual(['static']);
    expect(filterBackends(ALL, '', 'unknown')).toEqual([]);
    expect(filterBackends(ALL, 'ord', 'healthy')).toEqual([]);
  });
});
