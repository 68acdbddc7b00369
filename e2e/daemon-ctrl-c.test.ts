// `npm start`'s script in a real terminal (tmux): Ctrl-C stops the daemon cleanly, and a run
// that was killed is reported by the next start.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, REPO_ROOT, waitUntil } from './harness.js';
import { shellQuote, TmuxServer } from './tmux.js';

const WAIT_MS = 60_000;

describe('npm start in a terminal', () => {
  const tmux = new TmuxServer('ctrl-c');
  let dir: string;
  let env: string;
  let run = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-e2e-ctrl-c-'));
    const vars = {
      PORTICO_DATA_DIR: join(dir, 'data'),
      PORTICO_CONTROL_ADDR: `127.0.0.1:${await freePort()}`,
      PORTICO_SERVICES_ADDR: `127.0.0.1:${await freePort()}`,
      PORTICO_CDS_ADDR: `127.0.0.1:${await freePort()}`,
      PORTICO_GATEWAY_PORT: String(await freePort()),
    };
    env = Object.entries(vars).map(([k, v]) => `${k}=${shellQuote(v)}`).join(' ');
    tmux.run('new-session', '-d', '-x', '120', '-y', '30', '-s', 'start', '-c', REPO_ROOT);
  });
  afterAll(() => {
    tmux.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Types `node scripts/start.mjs` at the shell prompt, its output in a log file; waits for "ready:". */
  async function start(): Promise<string> {
    const log = join(dir, `run-${++run}.log`);
    tmux.run('send-keys', '-t', 'start', `env ${env} ${shellQuote(process.execPath)} scripts/start.mjs > ${shellQuote(log)} 2>&1; echo "EXIT=$?" >> ${shellQuote(log)}`, 'Enter');
    await waitUntil(() => read(log).includes('ready: '), WAIT_MS, () => `the daemon never became ready:\n${read(log)}`);
    return log;
  }

  it('Ctrl-C stops the daemon cleanly (one SIGINT, every component stopped, exit 0)', async () => {
    const log = await start();
    tmux.run('send-keys', '-t', 'start', 'C-c');
    await waitUntil(() => /EXIT=\d+/.test(read(log)), WAIT_MS, () => `the run never ended:\n${read(log)}`);
    const text = read(log);
    expect(text).toMatch(/stopping signal=SIGINT/);
    expect(text).not.toMatch(/second SIGINT/);
    expect(text).toMatch(/INFO +stopped\n/);
    expect(text).toMatch(/EXIT=0\n/);
  });

  it('the next start says nothing after a clean stop, and names a run that was killed', async () => {
    const clean = await start();
    expect(read(clean)).not.toMatch(/did not stop cleanly/);
    const pid = Number(/portico starting .*pid=(\d+)/.exec(read(clean))?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => /EXIT=\d+/.test(read(clean)), WAIT_MS, () => `the killed run never ended:\n${read(clean)}`);
    const next = await start();
    expect(read(next)).toMatch(new RegExp(`WARN +the previous run \\(pid ${pid}, mode all, started [^)]+\\) did not stop cleanly`));
    tmux.run('send-keys', '-t', 'start', 'C-c');
    await waitUntil(() => /EXIT=0/.test(read(next)), WAIT_MS, () => `the last run did not stop cleanly:\n${read(next)}`);
  });
});

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
