import { describe, expect, it } from 'vitest';
import type { BackendUpdate } from '../../main/app-router.js';
import { join, tempDir, writeFileSync } from '../reload/testing/config-files.js';
import { startApi } from './testing/control-api.js';

const CONFIG = `server "main" {
  api "v1" {
    base_path = "/v1"
    endpoint "/users" {
      proxy {
        backend = "users"
      }
    }
    endpoint "/orders" {
      proxy {
        backend = "users"
      }
      request "audit" {
        url = "http://127.0.0.1:2/audit"
      }
    }
  }
}

definitions {
  backend "users" {
    origin             = "http://127.0.0.1:1"
    use_when_unhealthy = true
    beta_health {
      path = "/health"
    }
  }
}
`;

async function start() {
  const dir = tempDir();
  const main = join(dir, 'portico.hcl');
  writeFileSync(main, CONFIG);
  return startApi([main]);
}

describe('backends control API', () => {
  it('lists every backend with its origin, health and the endpoints using it', async () => {
    const { api, health } = await start();
    health.report('users', 'healthy', '', 4);
    const list = await api.backends.list.query();
    const users = list.find((b) => b.name === 'users')!;
    expect(users).toMatchObject({ origin: 'http://127.0.0.1:1', anonymous: false, useWhenUnhealthy: true, usedBy: ['/v1/orders', '/v1/users'] });
    expect(users.health).toMatchObject({ state: 'healthy', failures: 0, latencyMs: 4, checked: true, error: '' });
    expect(users.health.lastCheckAt).not.toBeNull();
    const anonymous = list.find((b) => b.anonymous)!;
    expect(anonymous).toMatchObject({ origin: 'http://127.0.0.1:2', usedBy: ['/v1/orders'], health: { checked: false } });
  });

  it('streams checks and state changes on backends.changes, keeps a timeline newest first, and announces changes on the event bus', async () => {
    const { api, health, bus } = await start();
    const seen: BackendUpdate[] = [];
    const subscription = api.backends.changes.subscribe(undefined, { onData: (tracked) => seen.push(tracked.data) });
    await expect
      .poll(() => {
        health.report('users', 'healthy');
        return seen.length;
      })
      .toBeGreaterThan(0);
    health.report('users', 'degraded', 'connect ECONNREFUSED 127.0.0.1:1');
    health.report('users', 'unhealthy', 'connect ECONNREFUSED 127.0.0.1:1');
    await expect.poll(() => seen.filter((u) => u.change?.to === 'unhealthy')).toHaveLength(1);
    const last = seen.at(-1)!;
    expect(last).toMatchObject({ backend: 'users', health: { state: 'unhealthy', failures: 2 }, change: { from: 'degraded', to: 'unhealthy', error: 'connect ECONNREFUSED 127.0.0.1:1' } });
    subscription.unsubscribe();

    const timeline = await api.backends.timeline.query();
    expect(timeline.map((c) => `${c.from}>${c.to}`).slice(0, 2)).toEqual(['degraded>unhealthy', 'healthy>degraded']);
    const events = bus.latest(500).filter((e) => e.type === 'backend.health');
    expect(events.at(-1)).toMatchObject({ level: 'error', message: 'backend users: degraded → unhealthy: connect ECONNREFUSED 127.0.0.1:1' });
  });

  it('answers PRECONDITION_FAILED with a clear message when the daemon runs without the gateway', async () => {
    const { api } = await startApi(null);
    await expect(api.backends.list.query()).rejects.toMatchObject({ message: expect.stringMatching(/^backends does not run in this daemon process; start it with --mode all/), data: { code: 'PRECONDITION_FAILED' } });
    await expect(api.config.status.query()).rejects.toMatchObject({ data: { code: 'PRECONDITION_FAILED' } });
  });
});
