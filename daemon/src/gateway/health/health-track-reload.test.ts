import { expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin, type TestOrigin } from '../backend/testing/origin.js';
import { monitorFor, transitions } from './testing/health-fixture.js';

async function origin(): Promise<TestOrigin> {
  const started = await startOrigin((_req, res) => res.end());
  cleanup(started.close);
  return started;
}

function backend(name: string, url: string, health: string): string {
  return `backend "${name}" {\n origin = "${url}"\n${health ? ` beta_health {\n${health}\n }\n` : ''}}`;
}

test('track() keeps unchanged checks (state, timer), restarts changed ones, starts new ones and stops removed ones', async () => {
  const [kept, changed, removed, added] = [await origin(), await origin(), await origin(), await origin()];
  const first = await loadDefinitions(
    [backend('kept', kept.url, '  interval = "100ms"'), backend('changed', changed.url, '  interval = "100ms"'), backend('removed', removed.url, '  interval = "100ms"')].join('\n'),
  );
  const { monitor } = monitorFor(first);
  await expect.poll(() => Object.values(monitor.snapshot()).map((h) => h.state)).toEqual(['healthy', 'healthy', 'healthy']);
  const keptSince = monitor.snapshot().kept!.since;

  const second = await loadDefinitions(
    [backend('kept', kept.url, '  interval = "100ms"'), backend('changed', changed.url, '  interval = "100ms"\n  path = "/v2"'), backend('added', added.url, '  interval = "100ms"')].join('\n'),
  );
  monitor.track(second);
  expect(Object.keys(monitor.snapshot()).sort()).toEqual(['added', 'changed', 'kept']);
  // Kept: same state and since, no check restarted from unknown.
  expect(monitor.snapshot().kept).toMatchObject({ state: 'healthy', since: keptSince });
  // Changed: its check starts again from unknown.
  expect(monitor.snapshot().changed?.state).toBe('unknown');
  expect(monitor.snapshot().added?.state).toBe('unknown');
  const removedChecks = removed.requests.length;

  await expect.poll(() => changed.requests.filter((r) => r.path === '/v2').length).toBeGreaterThanOrEqual(3);
  await expect.poll(() => monitor.snapshot().added?.state).toBe('healthy');
  expect(monitor.snapshot().changed?.state).toBe('healthy');
  expect(monitor.snapshot().kept).toMatchObject({ state: 'healthy', since: keptSince });
  expect(transitions(monitor.timeline(), 'kept')).toEqual(['unknown→healthy']);
  expect(transitions(monitor.timeline(), 'changed')).toEqual(['unknown→healthy', 'healthy→unknown', 'unknown→healthy']);
  // Three checks of the new path later, the removed backend got at most the one already in flight.
  expect(removed.requests.length).toBeLessThanOrEqual(removedChecks + 1);
});

test('removing beta_health from a backend leaves it healthy and unchecked', async () => {
  let status = 500;
  const target = await startOrigin((_req, res) => res.writeHead(status).end());
  cleanup(target.close);
  const { monitor } = monitorFor(await loadDefinitions(backend('b', target.url, '  interval = "100ms"\n  failure_threshold = 1')));
  await expect.poll(() => monitor.snapshot().b?.state).toBe('unhealthy');
  monitor.track(await loadDefinitions(backend('b', target.url, '')));
  expect(monitor.snapshot().b).toMatchObject({ state: 'healthy', checked: false });
  expect(transitions(monitor.timeline())).toEqual(['unknown→unhealthy', 'unhealthy→healthy']);
  status = 200;
});

test('stop() ends every check', async () => {
  const target = await origin();
  const other = await origin();
  const { monitor } = monitorFor(await loadDefinitions(backend('b', target.url, '  interval = "100ms"')));
  await expect.poll(() => monitor.snapshot().b?.state).toBe('healthy');
  await monitor.stop();
  const checks = target.requests.length;
  // A second monitor's checks show time passing; the stopped one's origin hears nothing more.
  const { monitor: second } = monitorFor(await loadDefinitions(backend('o', other.url, '  interval = "100ms"')));
  await expect.poll(() => other.requests.length).toBeGreaterThanOrEqual(3);
  await second.stop();
  expect(target.requests.length).toBe(checks);
});
