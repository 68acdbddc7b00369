// The console against the daemon's real control server: live updates, a dropped link, recovery.
import { afterEach, describe, expect, it } from 'vitest';
import { createControlClient } from '../control/control-client.js';
import type { ControlSource } from '../control/control-source.js';
import { runTui } from '../run-tui.js';
import { App } from '../shell/app.js';
import { FakeStdin, FakeStdout, KEYS, renderInTerminal, type TestTerminal } from '../testing/terminal.js';
import { startTestDaemon, type TestDaemon } from '../testing/test-daemon.js';
import { LiveStore } from './live-store.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function daemon(opts: Parameters<typeof startTestDaemon>[0] = {}): Promise<TestDaemon> {
  const d = await startTestDaemon(opts);
  cleanups.push(() => d.close());
  return d;
}

async function consoleOn(d: TestDaemon): Promise<{ term: TestTerminal; source: ControlSource }> {
  const source = createControlClient({ url: d.url, token: d.token, retryDelayMs: () => 100 });
  const store = new LiveStore(source, await source.fetchStatus());
  store.start();
  const term = renderInTerminal(<App store={store} source={source} color={false} />);
  cleanups.push(() => source.close(), () => store.stop(), () => term.instance.unmount());
  await expect.poll(() => term.screen()[0]).toContain('● connected');
  return { term, source };
}

describe('live console on a real control server', () => {
  it('shows a component change and the event as soon as the daemon publishes it', async () => {
    const d = await daemon();
    const { term } = await consoleOn(d);
    expect(term.text()).toMatch(/gateway\s+◐ starting/);
    d.setComponent('gateway', 'running', 'listening on 0.0.0.0:8080');
    await expect.poll(() => term.text()).toMatch(/gateway\s+● running\s+0s\s+listening on 0\.0\.0\.0:8080/);
    await term.press(KEYS.tab);
    expect(term.text()).toMatch(/info {3}component.state {2}gateway running$/m);
  });

  it('starts the events view with what the daemon still buffers', async () => {
    const d = await daemon();
    d.bus.publish({ type: 'daemon.started', message: 'portico 0.1.0 started in mode all' });
    const { term } = await consoleOn(d);
    await term.press(':events\r');
    await expect.poll(() => term.text()).toMatch(/daemon\.started {2,}portico 0\.1\.0 started in mode all/);
  });

  it('says disconnected — reconnecting… when the daemon goes away and recovers when it is back', async () => {
    const first = await daemon({ bootId: 'boot-a' });
    const { term } = await consoleOn(first);
    await first.close();
    await expect.poll(() => term.screen()[0], { timeout: 5_000 }).toContain('✗ disconnected — reconnecting…');
    const second = await daemon({ port: first.port, bootId: 'boot-b' });
    second.bus.publish({ type: 'daemon.started', message: 'started again' });
    await expect.poll(() => term.screen()[0], { timeout: 10_000 }).toContain('● connected');
    await expect.poll(() => term.text()).toContain('boot     boot-b');
    await term.press(KEYS.tab);
    await expect.poll(() => term.text()).toContain('started again');
  });
});

describe('portico tui on a terminal', () => {
  it('opens the full-screen console in the alternate screen and quits with exit 0 on q', async () => {
    const d = await daemon();
    const stdin = new FakeStdin();
    const stdout = new FakeStdout(80, 24);
    const done = runTui({ url: d.url, token: d.token, stdin: stdin as unknown as NodeJS.ReadStream, stdout: stdout as unknown as NodeJS.WriteStream, env: {} });
    await expect.poll(() => stdout.frames.join('')).toContain('COMPONENTS');
    stdin.write('q');
    await expect(done).resolves.toBe(0);
    const written = stdout.frames.join('');
    expect(written.startsWith('\u001B[?1049h')).toBe(true);
    expect(written.endsWith('\u001B[?1049l')).toBe(true);
    expect(written).not.toContain(d.token);
  });
});
