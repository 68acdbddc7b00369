import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runTui } from './run-tui.js';
import { Capture, pipedStdin } from './testing/capture.js';
import { startTestDaemon, type TestDaemon } from './testing/test-daemon.js';

let daemon: TestDaemon | undefined;
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
});

async function run(opts: { url: string; token: string; json?: boolean }): Promise<{ code: number; out: string; err: string }> {
  const out = new Capture();
  const err = new Capture();
  const code = await runTui({ ...opts, stdin: pipedStdin(), stdout: out.asStream(), stderr: err.asStream(), env: {} });
  return { code, out: out.text, err: err.text };
}

async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('portico tui without a terminal', () => {
  it('prints the status once as text and exits 0', async () => {
    daemon = await startTestDaemon();
    const { code, out, err } = await run({ url: daemon.url, token: daemon.token });
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toContain(`Portico daemon at ${daemon.url}`);
    expect(out).toMatch(/^ {2}mode {5}all$/m);
    expect(out).toMatch(/^ {2}store {6}● running {5}1m 0\ds {4}sqlite data\/portico\.db$/m);
    expect(out).toMatch(/^ {2}gateway {4}◐ starting {4}0s$/m);
    expect(out).not.toContain('\u001B[');
    expect(out).not.toContain(daemon.token);
  });

  it('prints system.status as JSON with --json', async () => {
    daemon = await startTestDaemon();
    const { code, out } = await run({ url: daemon.url, token: daemon.token, json: true });
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as ReturnType<TestDaemon['status']>;
    expect(parsed).toMatchObject({ version: '0.1.0', mode: 'all', bootId: 'boot-a' });
    expect(parsed.components.map((c) => [c.name, c.state])).toEqual([
      ['store', 'running'],
      ['control', 'running'],
      ['gateway', 'starting'],
    ]);
  });

  it('says the daemon is unreachable and exits 1', async () => {
    const port = await unusedPort();
    const { code, out, err } = await run({ url: `http://127.0.0.1:${port}`, token: 'whatever-token-value' });
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toBe(
      `portico tui: cannot reach the Portico daemon at http://127.0.0.1:${port} (connection refused). Is it running? Start it with \`portico daemon\`, or point --url / PORTICO_CONTROL_ADDR at it.\n`,
    );
  });

  it('says the token was refused and exits 1, without printing the token', async () => {
    daemon = await startTestDaemon();
    const { code, out, err } = await run({ url: daemon.url, token: 'not-the-right-token-at-all' });
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toContain(`portico tui: the daemon at ${daemon.url} refused the control token (HTTP 401).`);
    expect(err).toContain('--token-file');
    expect(err).not.toContain('not-the-right-token-at-all');
  });

  it('refuses a URL that is not http(s) with exit 1', async () => {
    const { code, err } = await run({ url: 'ftp://127.0.0.1:9901', token: 'x-token' });
    expect(code).toBe(1);
    expect(err).toContain('the control URL must be http:// or https://');
  });
});
