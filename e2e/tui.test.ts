// `portico tui` in a real 80x24 terminal (tmux), against a real daemon.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, PORTICO_BIN, REPO_ROOT, freePort, runPortico, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { TmuxServer, isWholeFrame, shellQuote } from './tmux.js';

const WAIT_MS = 15_000;
const tmuxServer = new TmuxServer('tui');
const SESSION = 'tui';

let daemon: DaemonHandle;

function tmux(...args: string[]): string {
  return tmuxServer.run(...args);
}

function screen(): string {
  return tmux('capture-pane', '-p', '-t', SESSION);
}

/** Starts `portico tui` in a fresh 80x24 pane; the pane says how it exited and then stays. */
function openTui(extraEnv: Record<string, string> = {}): void {
  const env = Object.entries(extraEnv).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ');
  const command = `printf 'shell before tui\\n'; env ${env} ${shellQuote(process.execPath)} ${shellQuote(PORTICO_BIN)} tui --url ${daemon.controlUrl} --token-file ${shellQuote(join(daemon.dataDir, 'control.token'))}; echo "[tui exited $?]"; sleep 600`;
  tmux('new-session', '-d', '-x', '80', '-y', '24', '-s', SESSION, '-c', REPO_ROOT, command);
}

async function waitForScreen(pattern: RegExp): Promise<string> {
  let last = '';
  await waitUntil(() => pattern.test((last = screen())), WAIT_MS, () => `the pane never matched ${pattern}; it shows:\n${last}`);
  return last;
}

/** Waits for `pattern` in a whole frame, for a test that then reads more of the same capture. */
async function waitForFrame(pattern: RegExp): Promise<string> {
  let last = '';
  await waitUntil(() => isWholeFrame((last = screen())) && pattern.test(last), WAIT_MS, () => `the pane never showed a whole frame matching ${pattern}; it shows:\n${last}`);
  return last;
}

function keys(...k: string[]): void {
  tmux('send-keys', '-t', SESSION, ...k);
}

beforeAll(async () => {
  daemon = await startDaemon();
});

afterEach((ctx) => {
  const failed = ctx.task.result?.state === 'fail';
  if (failed) {
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    const name = ctx.task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 80);
    let pane = '(no pane)';
    try {
      pane = screen();
    } catch {
      /* the session is gone */
    }
    writeFileSync(join(ARTIFACTS_DIR, `tui-${name}.txt`), `--- pane ---\n${pane}\n--- daemon ---\n${daemon.logs()}`);
  }
  tmuxServer.kill();
});

afterAll(async () => {
  await daemon?.dispose();
});

describe('portico tui in a terminal', () => {
  it('shows the live status in 80x24, the ? help, switches views, and quits on q', async () => {
    openTui({ NO_COLOR: '1' });
    // Wait for the whole frame: a mode change draws twice (the view, then its key hints).
    const status = await waitForScreen(/● connected[\s\S]*control +● running[\s\S]*q quit\s*$/);
    const lines = status.replace(/\n$/, '').split('\n');
    expect(lines).toHaveLength(24);
    expect(lines[0]).toMatch(/^ Portico ● connected {2}http:\/\/127\.0\.0\.1:\d+ {2}v\S+ · all$/);
    expect(lines[1]).toContain('[status]');
    expect(status).toContain(`pid ${daemon.pid()}`);
    expect(status).toMatch(/^ {3}store +● running/m);
    expect(lines[23]).toBe(' ? help  : command  q quit');
    expect(status).not.toContain(daemon.token);

    keys('?');
    // Nine views' commands make the help longer than 24 rows: it scrolls, and says so.
    const help = await waitForScreen(/Global keys[\s\S]*Esc close help {2}↓\/j more\s*$/);
    expect(help).toMatch(/^ {3}q +quit/m);
    expect(help).toMatch(/^ {3}:events +live list of daemon events/m);
    expect(help.replace(/\n$/, '').split('\n')[23]).toContain('Esc close help');
    expect(help).toMatch(/^ {3}: +switch view: type its name and Enter \(Tab completes\)$/m);

    keys('Escape');
    await waitForScreen(/COMPONENTS/);
    keys(':events', 'Enter');
    const events = await waitForFrame(/\[events\][\s\S]*component\.state/);
    expect(events).toMatch(/· info +component\.state +control running/);

    keys('q');
    const after = await waitForScreen(/\[tui exited 0\]/);
    // The console used the alternate screen: leaving it brings back what the shell showed.
    expect(after).toContain('shell before tui');
    expect(after).not.toContain('COMPONENTS');
  });

  it('says disconnected when the daemon stops and recovers by itself when it is back', async () => {
    openTui();
    await waitForScreen(/● connected[\s\S]*control +● running/);
    const firstPid = daemon.pid();
    expect(await daemon.stop('SIGTERM')).toBe(0);
    await waitForScreen(/✗ disconnected — reconnecting…/);
    await daemon.start();
    const back = await waitForFrame(new RegExp(`● connected[\\s\\S]*pid ${daemon.pid()}`));
    expect(daemon.pid()).not.toBe(firstPid);
    expect(back).toMatch(/control +● running/);
    keys('q');
    await waitForScreen(/\[tui exited 0\]/);
  });
});

describe('portico tui without a terminal', () => {
  const tokenFile = (): string => join(daemon.dataDir, 'control.token');

  it('prints the status once as text, or as JSON with --json, and exits 0', async () => {
    const text = await runPortico(['tui', '--url', daemon.controlUrl, '--token-file', tokenFile()]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^ {2}control +● running/m);
    const json = await runPortico(['tui', '--url', daemon.controlUrl, '--token-file', tokenFile(), '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ pid: daemon.pid(), mode: 'all' });
  });

  it('exits 1 with a clear message for a wrong token or an unreachable daemon', async () => {
    const wrong = await runPortico(['tui', '--url', daemon.controlUrl], { env: { PORTICO_CONTROL_TOKEN: 'wrong-token-0123456789' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/refused the control token \(HTTP 401\)/);
    expect(wrong.stderr).not.toContain('wrong-token-0123456789');
    const port = await freePort();
    const gone = await runPortico(['tui', '--url', `http://127.0.0.1:${port}`, '--token-file', tokenFile()]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/cannot reach the Portico daemon at http:\/\/127\.0\.0\.1:\d+ \(connection refused\)/);
  });
});
