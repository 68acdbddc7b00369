import { expect, test } from 'vitest';
import { cleanup, loadDefinitions } from '../backend/testing/backend-fixture.js';
import { startOrigin } from '../backend/testing/origin.js';
import { monitorFor } from './testing/health-fixture.js';

// Only lower bounds on the spacing: a timer never fires early, however slow the machine.
test('interval spaces the checks of each backend: one check after another, at least interval apart', async () => {
  const arrivals: Record<string, number[]> = { fast: [], slow: [] };
  const origin = await startOrigin((req, res) => {
    arrivals[req.url === '/fast' ? 'fast' : 'slow']!.push(performance.now());
    res.writeHead(204).end();
  });
  cleanup(origin.close);
  const config = await loadDefinitions(
    `backend "fast" {\n origin = "${origin.url}"\n beta_health {\n  interval = "400ms"\n  path = "/fast"\n }\n}\n` +
      `backend "slow" {\n origin = "${origin.url}"\n beta_health {\n  interval = "1m"\n  path = "/slow"\n }\n}`,
  );
  monitorFor(config);

  await expect.poll(() => arrivals.fast!.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(7);
  const gaps = arrivals.fast!.slice(1).map((at, i) => at - arrivals.fast![i]!);
  // A few ms of slack: each arrival is measured at the origin, after the request's own trip.
  for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(390);
  // The first check runs at once; the slow backend's second is a minute away (the default, 2s, would have come by now: seven checks 400 ms apart take 2.4 s).
  expect(arrivals.slow).toHaveLength(1);
});
