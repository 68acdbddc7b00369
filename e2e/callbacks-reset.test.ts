import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeTestTls, startReceiver, type TestReceiver, type TestTls } from '../daemon/src/ingest/testing/https-receiver.js';
import { seedDeliveries } from '../daemon/src/ingest/testing/ingest-fixture.js';
import { SqliteStore } from '../daemon/src/store/sqlite-store.js';
import { ARTIFACTS_DIR, PORTICO_BIN, REPO_ROOT, runPortico, startDaemon, waitUntil, type DaemonHandle } from './harness.js';
import { shellQuote, TmuxServer } from './tmux.js';
import { shortId } from '../daemon/src/display/ids.js';

// Three attempts a round, the third due an hour after the second: a delivery reaches DEAD within
// a second when retried now, and waits long enough for an operator's retry otherwise.
const SCHEDULE = '0s,300ms,1h';
const WAIT_MS = 20_000;

const SECRET = 'reset-secret-0123456789abcdef0123456789';
let tls: TestTls;
let receiver: TestReceiver;
let daemon: DaemonHandle;
let store: SqliteStore;
beforeAll(async () => {
  tls = makeTestTls();
  receiver = await startReceiver(tls);
  daemon = await startDaemon({ env: { SERVICE_CALLBACK_CA_FILE: tls.caFile, SERVICE_CALLBACK_ALLOW_HOSTS: '127.0.0.1', SERVICE_CALLBACK_POLL_INTERVAL_S: '0.1', SERVICE_CALLBACK_RETRY_SCHEDULE: SCHEDULE } });
  store = new SqliteStore({ file: join(daemon.dataDir, 'portico.db') });
});
afterAll(async () => {
  await store?.close();
  await daemon?.dispose();
  await receiver?.close();
  tls?.dispose();
});

const connection = () => ['--url', daemon.controlUrl, '--token-file', join(daemon.dataDir, 'control.token')];

interface Row {
  status: string;
  attempts: number;
  next_attempt_at: number;
}
const row = async (id: string): Promise<Row> => (await store.get<Row>('SELECT status, attempts, next_attempt_at FROM ingest_callback_outbox WHERE id = ?', [id]))!;

/** A delivery to `path` that failed twice and now waits an hour for its third (last) attempt. */
async function waitingDelivery(path: string): Promise<string> {
  const [id] = await seedDeliveries(store, 1, `${receiver.url}${path}`);
  await waitUntil(async () => (await row(id!)).attempts === 2, WAIT_MS, () => `2 attempts of ${id}`);
  const r = await row(id!);
  expect(r.status).toBe('PENDING');
  expect(r.next_attempt_at - Date.now()).toBeGreaterThan(30 * 60_000);
  return id!;
}

async function attemptNumbers(id: string): Promise<number[]> {
  return (await store.all<{ attempt: number }>('SELECT attempt FROM ingest_callback_attempts WHERE delivery_id = ? ORDER BY started_at', [id])).map((a) => Number(a.attempt));
}

describe('resetting DEAD deliveries with portico deliveries reset', () => {
  it('shows the count, refuses without --yes off a terminal, resets, and the rows then deliver once each', async () => {
    // Due in an hour: the daemon's worker must not send them before the UPDATE makes them DEAD.
    const now = Date.now();
    const ids = await seedDeliveries(store, 3, `${receiver.url}/dead`, SECRET, now, now + 3600_000);
    await store.run(`UPDATE ingest_callback_outbox SET status = 'DEAD', attempts = 5, finished_at = ?, last_error = 'receiver answered HTTP 503'`, [Date.now()]);

    const dry = await runPortico(['deliveries', 'reset', '--all', '--dry-run', ...connection()]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('3 DEAD deliveries match');
    const refused = await runPortico(['deliveries', 'reset', '--callback-url', '/dead', ...connection()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/pass --yes/);
    expect(await store.get("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DEAD'")).toEqual({ n: 3 });
    const usage = await runPortico(['deliveries', 'reset', ...connection()]);
    expect(usage.code).toBe(2);

    const reset = await runPortico(['deliveries', 'reset', '--callback-url', '/dead', '--yes', ...connection()]);
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/reset 3 deliveries to PENDING/);
    await waitUntil(async () => (await store.get<{ n: number }>("SELECT COUNT(*) AS n FROM ingest_callback_outbox WHERE status = 'DELIVERED'"))!.n === 3, 20_000);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id']))).toEqual(new Set(ids));
    expect(receiver.received).toHaveLength(3);
    const recorded = await store.all<{ actor: string; count: number }>('SELECT actor, count FROM ingest_delivery_resets');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]!.count).toBe(3);
    expect(recorded[0]!.actor).toMatch(/\(cli\)$/);

    const list = await runPortico(['deliveries', 'list', '--status', 'delivered', ...connection()]);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/^ID\s+JOB\s+STATUS/);
    expect(list.stdout).not.toContain(SECRET);
  });

  it('retries a PENDING delivery now, refuses a DEAD one, and numbers attempts on after a reset (#4 after 3)', async () => {
    const failing = new Set(['/retry']);
    receiver.reply = (req) => (failing.has(req.path) ? { status: 503, body: 'busy' } : { status: 200, body: 'ok' });
    const id = await waitingDelivery('/retry');

    const usage = await runPortico(['deliveries', 'retry', 'not-an-id', ...connection()]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/'deliveries retry' needs exactly one delivery ID, a UUID/);
    const dry = await runPortico(['deliveries', 'retry', id, '--dry-run', ...connection()]);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`delivery ${id} of job `);
    expect(dry.stdout).toContain('PENDING, 2/3 attempts in this round');
    expect(dry.stdout).toContain('last attempt: HTTP 503 (receiver answered HTTP 503)');
    expect(dry.stdout).toMatch(/next attempt: \S+ \(in \d+ s\)/);
    const refused = await runPortico(['deliveries', 'retry', id, ...connection()]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not a terminal; pass --yes/);
    expect(await attemptNumbers(id)).toEqual([1, 2]);

    const retried = await runPortico(['deliveries', 'retry', id, '--yes', ...connection()]);
    expect(retried.stderr).toBe('');
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain(`delivery ${id} is due now`);
    await waitUntil(async () => (await row(id)).status === 'DEAD', WAIT_MS, () => `${id} DEAD after its third attempt`);
    const dead = await runPortico(['deliveries', 'retry', id, '--yes', ...connection()]);
    expect(dead.code).toBe(1);
    expect(dead.stderr).toContain(`only a PENDING delivery can be retried now; this one is DEAD (reset it to PENDING instead: portico deliveries reset --id ${id})`);

    failing.delete('/retry');
    const reset = await runPortico(['deliveries', 'reset', '--id', id, '--yes', ...connection()]);
    expect(reset.code).toBe(0);
    await waitUntil(async () => (await row(id)).status === 'DELIVERED', WAIT_MS, () => `${id} delivered after the reset`);
    expect(await attemptNumbers(id)).toEqual([1, 2, 3, 4]);
    const actions = await store.all<{ action: string; actor: string; attempts_before: number }>(
      'SELECT r.action, r.actor, x.attempts_before FROM ingest_delivery_reset_rows x JOIN ingest_delivery_resets r ON r.id = x.reset_id WHERE x.delivery_id = ? ORDER BY r.at',
      [id],
    );
    expect(actions.map((a) => [a.action, a.attempts_before])).toEqual([
      ['retry', 2],
      ['reset', 3],
    ]);
    for (const a of actions) expect(a.actor).toMatch(/\(cli\)$/);
    const list = await runPortico(['deliveries', 'list', '--callback-url', '/retry', ...connection()]);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+\\S+\\s+DELIVERED\\s+1/3`));
  });

  it('refuses to start with a bad SERVICE_CALLBACK_RETRY_SCHEDULE, naming the variable, the entry and what to write', async () => {
    const bad = await startDaemon({ env: { SERVICE_CALLBACK_RETRY_SCHEDULE: '0s,30s,5x' }, noWait: true });
    try {
      expect(await bad.exited()).toBe(1);
      expect(bad.logs()).toContain("SERVICE_CALLBACK_RETRY_SCHEDULE: entry 3: '5x' is not a duration; write a number and a unit");
      expect(bad.logs()).toContain('e.g. 0s,30s,5m,1h,6h (the default)');
    } finally {
      await bad.dispose();
    }
  });

  it('portico verify-signature accepts a received callback and rejects a tampered one', async () => {
    const got = receiver.received[0]!;
    const bodyFile = join(tls.dir, 'received.json');
    const secretFile = join(tls.dir, 'secret.txt');
    writeFileSync(bodyFile, got.body);
    writeFileSync(secretFile, `${SECRET}\n`);
    const headers = ['x-service-signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].flatMap((h) => ['-H', `${h}: ${String(got.headers[h])}`]);
    const ok = await runPortico(['verify-signature', '--secret-file', secretFile, '--body', bodyFile, ...headers]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^valid \(X-Service-Signature, webhook-signature\)/);
    writeFileSync(bodyFile, Buffer.concat([got.body, Buffer.from(' ')]));
    const tampered = await runPortico(['verify-signature', '--secret-file', secretFile, '--body', bodyFile, ...headers]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toMatch(/^invalid: X-Service-Signature does not match/);
    const none = await runPortico(['verify-signature', '--secret-file', secretFile, '--body', bodyFile]);
    expect(none.code).toBe(1);
  });
});

describe('retry now, reset and the DEAD count in the terminal console (tmux)', () => {
  const tmux = new TmuxServer('callbacks');
  const SESSION = 'tui';
  afterEach((ctx) => {
    if (ctx.task.result?.state === 'fail') capture(`failed-${ctx.task.name.slice(0, 40)}`);
  });
  afterAll(() => tmux.kill());

  const screen = (): string => tmux.run('capture-pane', '-p', '-t', SESSION);
  const keys = (...k: string[]): void => void tmux.run('send-keys', '-t', SESSION, ...k);
  async function shows(pattern: RegExp | string): Promise<string> {
    let last = '';
    const test = (text: string) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
    await waitUntil(() => test((last = screen())), WAIT_MS, () => `the pane never showed ${String(pattern)}; it shows:\n${last}`);
    return last;
  }
  /** The pane as text in e2e/artifacts, to look at (and for a failing run). */
  function capture(name: string): string {
    const text = screen();
    mkdirSync(ARTIFACTS_DIR, { recursive: true });
    writeFileSync(join(ARTIFACTS_DIR, `callbacks-tui-${name.replace(/[^a-z0-9]+/gi, '-')}.txt`), text);
    return text;
  }
  async function view(name: string, heading: RegExp | string): Promise<string> {
    keys(':', ...name.split(''), 'Enter');
    return shows(heading);
  }

  it('n retries the selected PENDING delivery after y; the log shows the retry, then the reset and #4; Status counts DEAD; Jobs opens the delivery', async () => {
    const failing = new Set(['/tui']);
    receiver.reply = (req) => (failing.has(req.path) ? { status: 503 } : { status: 200 });
    const id = await waitingDelivery('/tui');
    const short = shortId(id);
    const command = `${shellQuote(process.execPath)} ${shellQuote(PORTICO_BIN)} tui --url ${daemon.controlUrl} --token-file ${shellQuote(join(daemon.dataDir, 'control.token'))}; sleep 600`;
    tmux.run('new-session', '-d', '-x', '80', '-y', '24', '-s', SESSION, '-c', REPO_ROOT, command);
    await shows('● connected');

    await view('deliveries', 'DELIVERIES');
    keys('/', ...'/tui'.split(''), 'Enter');
    await shows(/1 matching · all statuses · url ~ "\/tui"/);
    // At 80 columns the JOB column gives way to the error text.
    await shows(new RegExp(`${short}\\s+(?:\\S+\\s+)?◐ PENDING\\s+2/3\\s+in (60m|1\\.0h)\\s+receiver`));
    keys('n');
    await shows(new RegExp(`retry ${short} now \\(next attempt in (60m|1\\.0h)\\)\\? y retries, Esc keeps the schedule`));
    capture('retry-question-80x24');
    keys('y');
    await shows(`delivery ${short} is due now; a callback worker attempts it at its next poll`);
    await waitUntil(async () => (await row(id)).status === 'DEAD', WAIT_MS, () => `${id} DEAD`);
    await shows(new RegExp(`${short}\\s+(?:\\S+\\s+)?✗ DEAD\\s+3/3\\s+\\d\\d:\\d\\d:\\d\\d\\s+receiver`));

    await view('status', 'DAEMON');
    await shows('webhooks ✗ 1 DEAD delivery · ◐ 0 PENDING');
    capture('status-dead-80x24');

    await view('deliveries', 'DELIVERIES');
    keys('Enter');
    await shows('#3  ');
    const log = screen();
    expect(log).toMatch(/── retry now by tui at (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d/);
    expect(log.indexOf('#2  ')).toBeLessThan(log.indexOf('── retry now'));
    expect(log.indexOf('── retry now')).toBeLessThan(log.indexOf('#3  '));

    failing.delete('/tui');
    keys('r');
    await shows(`reset 1 DEAD delivery (delivery ${short}) to PENDING? y resets, Esc keeps them`);
    keys('y');
    await waitUntil(async () => (await row(id)).status === 'DELIVERED', WAIT_MS, () => `${id} delivered after the reset`);
    await shows('#4  ');
    const after = capture('log-after-reset-80x24');
    expect(after).toMatch(/── reset by tui at (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d: a new round after #3/);
    expect(after.indexOf('#3  ')).toBeLessThan(after.indexOf('── reset by'));
    expect(after.indexOf('── reset by')).toBeLessThan(after.indexOf('#4  '));
    await shows(new RegExp(`${short}\\s+(?:\\S+\\s+)?● DELIVERED\\s+1/3\\s+\\d\\d:\\d\\d:\\d\\d\\s+HTTP 200`));
    expect(await attemptNumbers(id)).toEqual([1, 2, 3, 4]);

    await view('status', 'DAEMON');
    await shows('webhooks ✗ 0 DEAD deliveries');

    const job = (await store.get<{ ingest_job_id: string }>('SELECT ingest_job_id FROM ingest_callback_outbox WHERE id = ?', [id]))!.ingest_job_id;
    await view('jobs', 'JOBS');
    // Newest first: the job of this test's delivery is the top row, selected.
    await shows(new RegExp(`^ ${shortId(job)} `, 'm'));
    keys('Enter');
    await shows('delivery ● DELIVERED · attempt 1/3 (4 in all) · delivered');
    capture('job-detail-80x24');
    keys('d');
    await shows(`DELIVERIES  1 matching · all statuses · job ${shortId(job)}`);
    await shows(`${id} · attempt 1/3 (4 in all)`);

    tmux.run('resize-window', '-t', SESSION, '-x', '120', '-y', '30');
    // At 120 columns the detail shows the whole delivery id, its job and where it goes.
    await shows(`${id} · attempt 1/3 (4 in all) · job ${shortId(job)}`);
    await shows(/ to https:\/\/127\.0\.0\.1:\d+\/tui · ingest\.succeeded · unsigned/);
    await shows(/── reset by tui at .*: a new round after #3/);
    capture('deliveries-log-120x30');
    await view('jobs', 'JOBS');
    await shows('delivery ● DELIVERED');
    capture('job-detail-120x30');
    await view('status', 'DAEMON');
    await shows('webhooks');
    capture('status-120x30');
  });
});
