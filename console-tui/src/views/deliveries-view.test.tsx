import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryDetail, DeliverySelector, DeliveryView, JobView } from '@portico/daemon/control';
import type { ControlApi } from '../control/control-source.js';
import { LiveStore } from '../live/live-store.js';
import { App } from '../shell/app.js';
import { FakeSource } from '../testing/fake-source.js';
import { KEYS, renderInTerminal, type TestTerminal } from '../testing/terminal.js';
import { deliveriesView } from './deliveries-view.js';
import { jobsView } from './jobs-view.js';
import { statusView } from './status-view.js';

function delivery(n: number, status: DeliveryView['status'], url = `https://hooks.example.com/r${n}`): DeliveryView {
  return {
    id: `d${n}000000-0000-4000-8000-00000000000${n}`,
    ingest_job_id: `j${n}000000-0000-4000-8000-00000000000${n}`,
    callback_url: url,
    event_type: 'ingest.succeeded',
    status,
    attempts: status === 'DEAD' ? 5 : status === 'DELIVERED' ? 1 : 2,
    last_attempt_at: '2026-01-01T10:00:00.000Z',
    last_status_code: status === 'DELIVERED' ? 200 : 503,
    last_error: status === 'DELIVERED' ? null : 'receiver answered HTTP 503',
    next_attempt_at: '2099-01-01T00:00:00.000Z',
    created_at: '2026-01-01T09:00:00.000Z',
    finished_at: status === 'PENDING' ? null : '2026-01-01T10:00:00.000Z',
    tenant_id: 't1',
    workspace_id: 'w1',
    signed: true,
    headers: { 'X-Key': '***' },
    attempts_in_round: status === 'DEAD' ? 5 : status === 'DELIVERED' ? 1 : 2,
    max_attempts: 5,
  };
}

class ApiSource extends FakeSource {
  rows: DeliveryView[] = [delivery(1, 'DEAD'), delivery(2, 'DEAD', 'https://other.example.org/x'), delivery(3, 'DELIVERED'), delivery(4, 'PENDING')];
  listInputs: Array<Record<string, unknown>> = [];
  previews: DeliverySelector[] = [];
  resets: Array<DeliverySelector & { actor?: string }> = [];
  retries: Array<{ id: string; actor: string }> = [];
  jobs: JobView[] = [job()];
  /** What counts reads throw, when set: a fetch error (the daemon gone), a timeout, or the daemon's refusal. */
  countsError: Error | null = null;
  failedCountReads = 0;
  readonly api = {
    deliveries: {
      list: {
        query: async (input: { status?: string; url?: string; jobId?: string }) => {
          this.listInputs.push(input);
          const items = this.rows.filter((r) => (!input.status || r.status === input.status) && (!input.url || r.callback_url.includes(input.url)) && (!input.jobId || r.ingest_job_id === input.jobId));
          return { items: structuredClone(items), total: items.length, limit: 200, offset: 0 };
        },
      },
      get: {
        query: async ({ id }: { id: string }): Promise<DeliveryDetail> => ({
          ...this.rows.find((r) => r.id === id)!,
          attempt_log: [
            { kind: 'attempt', attempt: 1, worker: 'w', started_at: '2026-01-01T09:00:00.000Z', duration_ms: 41, status_code: 503, error: 'receiver answered HTTP 503', response_body: 'busy' },
            { kind: 'attempt', attempt: 2, worker: 'w', started_at: '2026-01-01T09:00:30.000Z', duration_ms: 10000, status_code: null, error: 'timeout: no answer within 10000 ms', response_body: null },
            ...(id === this.rows[3]?.id
              ? ([
                  { kind: 'reset', actor: 'ada@ops (cli)', at: '2026-01-01T09:30:00.000Z', attempts_before: 2 },
                  { kind: 'attempt', attempt: 3, worker: 'w', started_at: '2026-01-01T09:30:01.000Z', duration_ms: 12, status_code: 503, error: 'receiver answered HTTP 503', response_body: null },
                ] as const)
              : []),
          ],
        }),
      },
      counts: {
        query: async () => {
          if (this.countsError) {
            this.failedCountReads += 1;
            throw this.countsError;
          }
          return {
          PENDING: this.rows.filter((r) => r.status === 'PENDING').length,
          DELIVERED: this.rows.filter((r) => r.status === 'DELIVERED').length,
          DEAD: this.rows.filter((r) => r.status === 'DEAD').length,
          };
        },
      },
      retryNow: {
        mutate: async ({ id, actor }: { id: string; actor: string }) => {
          this.retries.push({ id, actor });
          const row = this.rows.find((r) => r.id === id)!;
          row.next_attempt_at = new Date().toISOString();
          return { id, resetId: 'r2', next_attempt_at: row.next_attempt_at };
        },
      },
      previewReset: { query: async (s: DeliverySelector) => (this.previews.push(s), { count: this.#matching(s).length }) },
      resetDead: {
        mutate: async (s: DeliverySelector & { actor?: string }) => {
          this.resets.push(s);
          const hit = this.#matching(s);
          for (const r of hit) Object.assign(r, { status: 'PENDING', attempts: 0 });
          return { count: hit.length, resetId: 'r1' };
        },
      },
    },
    jobs: {
      list: { query: async () => ({ items: structuredClone(this.jobs), total: this.jobs.length, limit: 200, offset: 0 }) },
      cancel: { mutate: async () => ({ ...job(), status: 'CANCELLED' }) },
    },
  } as unknown as ControlApi;
  #matching(s: DeliverySelector): DeliveryView[] {
    return this.rows.filter((r) => r.status === 'DEAD' && (!s.ids || s.ids.includes(r.id)) && (!s.url || r.callback_url.includes(s.url)) && (!s.jobId || r.ingest_job_id === s.jobId));
  }
}

function job(): JobView {
  return {
    ingest_job_id: 'a1b2c3d4-0000-4000-8000-000000000001', tenant_id: 't1', workspace_id: 'w1', dataset_id: 'dddddddd-0000-4000-8000-000000000001', table_id: null, file_id: null, snapshot_id: null,
    job_kind: 'PARSE_AND_INGEST', status: 'QUEUED', attempts: 0, request_json: { actor: 'ada' }, result_json: {}, created_at: '2026-01-01T09:00:00.000Z', updated_at: '2026-01-01T09:00:00.000Z', finished_at: null,
    callback: { url: 'https://hooks.example.com/j', secret: '***', headers: { 'X-Key': '***' } },
    delivery: null,
  };
}

let term: TestTerminal | undefined;
let store: LiveStore | undefined;
afterEach(() => {
  term?.instance.unmount();
  store?.stop();
});

async function start(view = deliveriesView, ...more: Array<typeof deliveriesView>): Promise<{ source: ApiSource; term: TestTerminal }> {
  const source = new ApiSource();
  store = new LiveStore(source, source.status);
  store.start();
  source.setLink({ kind: 'open' });
  term = renderInTerminal(<App store={store} source={source} views={[view, ...more]} color={false} flashMs={60_000} />);
  await new Promise((r) => setTimeout(r, 50));
  return { source, term };
}

async function shows(t: TestTerminal, text: string | RegExp): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!(typeof text === 'string' ? t.text().includes(text) : text.test(t.text()))) {
    if (Date.now() > deadline) throw new Error(`screen never showed ${String(text)}:\n${t.text()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const fits = (t: TestTerminal): void => {
  expect(t.screen()).toHaveLength(24);
  for (const line of t.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(80);
};

describe('deliveries view', () => {
  it('lists deliveries in 80 columns, filters by status, and shows the attempt log with codes, errors and timings', async () => {
    const { source, term } = await start();
    await shows(term, 'DELIVERIES  4 matching · all statuses');
    fits(term);
    // 80 columns: the job goes first; status stays beside the id; the times are local, with the date when not today;
    // the error text reads whole and the URL gives way to it (the detail shows it).
    expect(term.text()).toMatch(/d1000000 {2}✗ DEAD\s+5\/5\s+2026-01-01 10:00:00\s+receiver answered HTTP 503$/m);
    expect(term.text()).toMatch(/◐ PENDING\s+2\/5\s+in \d+d\s+receiver answered HTTP 503$/m);
    expect(term.text()).not.toContain('https://');
    await term.press('s', 's', 's');
    await shows(term, '2 matching · status DEAD');
    expect(source.listInputs.at(-1)).toMatchObject({ status: 'DEAD' });
    await term.press(KEYS.enter);
    await shows(term, '#2  2026-01-01 09:00:30  no answer  10000 ms  timeout: no answer within 1000');
    fits(term);
    expect(term.text()).toContain('#1  2026-01-01 09:00:00  HTTP 503  41 ms');
  });

  it('resets one, the marked, or all matching DEAD deliveries, showing the count before asking', async () => {
    const { source, term } = await start();
    await shows(term, '4 matching');
    await term.press('r');
    await shows(term, 'reset 1 DEAD delivery (delivery d1000000) to PENDING? y resets, Esc keeps them');
    await term.press(KEYS.escape);
    expect(source.resets).toHaveLength(0);
    // n answers the question (no), as in every view; it does not start a retry underneath.
    await term.press('r');
    await shows(term, 'reset 1 DEAD delivery (delivery d1000000) to PENDING?');
    await term.press('n');
    await expect.poll(() => term.text()).not.toContain('to PENDING? y resets');
    expect(term.text()).not.toContain('retry now is for PENDING ones');
    expect(source.resets).toHaveLength(0);
    await term.press(' ', KEYS.down, ' ');
    await shows(term, '2 marked');
    await term.press('r');
    await shows(term, 'reset 2 DEAD deliveries (the marked deliveries)');
    await term.press('y');
    await shows(term, 'reset 2 deliveries to PENDING');
    expect(source.resets[0]).toMatchObject({ ids: [source.rows[0]!.id, source.rows[1]!.id], actor: 'tui' });

    source.rows.push(delivery(5, 'DEAD', 'https://other.example.org/y'));
    await term.press('/');
    await term.press(...'other'.split(''), KEYS.enter);
    await shows(term, 'url ~ "other"');
    await term.press('R');
    await shows(term, 'reset 1 DEAD delivery (the filter)');
    expect(source.previews.at(-1)).toEqual({ url: 'other', all: false });
  });

  it('says there is nothing to reset when the selection holds no DEAD delivery, and asks nothing', async () => {
    const { source, term } = await start();
    await shows(term, '4 matching');
    await term.press(KEYS.down, KEYS.down, KEYS.down, 'r');
    await shows(term, 'no DEAD deliveries to reset (delivery d4000000)');
    expect(source.previews.at(-1)).toEqual({ ids: [source.rows[3]!.id] });
    expect(term.text()).not.toContain('to PENDING?');
    await term.press('y');
    expect(source.resets).toHaveLength(0);
  });

  it('retries a PENDING delivery now after y, and refuses a DEAD one, pointing at reset', async () => {
    const { source, term } = await start();
    await shows(term, '4 matching');
    await term.press('n');
    await shows(term, 'delivery d1000000 is DEAD: retry now is for PENDING ones; r resets it');
    await term.press(KEYS.down, KEYS.down, KEYS.down, 'n');
    await shows(term, /retry d4000000 now \(next attempt in \d+d\)\? y retries, Esc keeps the schedule/);
    fits(term);
    await term.press(KEYS.escape);
    expect(source.retries).toHaveLength(0);
    await term.press('n');
    await shows(term, 'retry d4000000 now');
    await term.press('y');
    await shows(term, 'delivery d4000000 is due now; a callback worker attempts it at its next poll');
    expect(source.retries).toEqual([{ id: source.rows[3]!.id, actor: 'tui' }]);
    await shows(term, /◐ PENDING\s+2\/5\s+due now\s+receiver answered HTTP 503$/m);
  });

  it('uses the width of a wide terminal: the job, the whole error text and the whole URL at 120 columns; narrow, the status outlives the URL', async () => {
    const { term } = await start();
    await shows(term, 'DELIVERIES  4 matching · all statuses');
    term.stdout.resize(120, 30);
    await shows(term, /d1000000 {2}j1000000 {2}✗ DEAD\s+5\/5\s+2026-01-01 10:00:00\s+receiver answered HTTP 503\s+https:\/\/hooks\.example\.com\/r1\n/);
    expect(term.text()).toMatch(/d3000000 {2}j3000000 {2}● DELIVERED\s+1\/5\s+2026-01-01 10:00:00\s+HTTP 200\s/);
    term.stdout.resize(40, 24);
    await shows(term, /d1000000 {2}✗ DEAD/);
    expect(term.text()).not.toContain('https://');
  });

  it('tells deliveries made in the same minute apart: a UUIDv7 id shows its last 8 characters, in the list and in what the view says', async () => {
    const { source, term } = await start();
    await shows(term, '4 matching');
    // Time-ordered ids: the first 8 characters are the same for every delivery of that minute.
    source.rows = [
      { ...delivery(1, 'DEAD'), id: '01a20f22-b355-7e67-8945-5e3d789ac373' },
      { ...delivery(2, 'DEAD'), id: '01a20f22-b3c5-7422-883d-8c0e9038fb86' },
    ];
    source.emit({ type: 'delivery.state', message: 'delivery changed' });
    await shows(term, '2 matching');
    expect(term.text()).toMatch(/^ {3}789ac373 {2}✗ DEAD/m);
    expect(term.text()).toMatch(/^ {3}9038fb86 {2}✗ DEAD/m);
    await term.press(KEYS.down, 'n');
    await shows(term, 'delivery 9038fb86 is DEAD: retry now is for PENDING ones');
    await term.press('r');
    await shows(term, 'reset 1 DEAD delivery (delivery 9038fb86) to PENDING?');
    await term.press(KEYS.escape);
    expect(term.text()).not.toContain('01a20f22');
  });

  it('gives an unreachable receiver\'s error text the room at 80 columns; at 120 the URL reads whole and the detail header fits', async () => {
    const { source, term } = await start();
    await shows(term, '4 matching');
    const id = '01a20f22-b3c5-7422-883d-8c0e9038fb86';
    const url = 'https://127.0.0.1:41871/hooks/unreachable';
    const error = 'connect ECONNREFUSED 127.0.0.1:41871';
    source.rows = [
      { ...delivery(1, 'DEAD', url), id, ingest_job_id: 'cd926fe7-b8e2-436c-bce4-16d19f662521', last_status_code: null, last_error: error, finished_at: new Date().toISOString(), signed: false },
      { ...delivery(3, 'DELIVERED', 'https://127.0.0.1:38923/hooks/describe'), finished_at: new Date().toISOString() },
    ];
    source.emit({ type: 'delivery.state', message: 'delivery changed' });
    await shows(term, '2 matching');
    fits(term);
    // The error reads whole (not 12 cells of it beside 15 of a URL); the URL is in the detail.
    expect(term.text()).toMatch(new RegExp(`^ {3}9038fb86 {2}✗ DEAD {7}5/5 {2}\\d\\d:\\d\\d:\\d\\d {2}${error}$`, 'm'));
    expect(term.text()).not.toContain('https://127');
    // Every hint on the bottom line is whole; the rest are in ? help.
    expect(term.screen().at(-1)).toBe(' ? help  : command  q quit  ↓/j move  Enter attempts  s status  / url  r reset');

    term.stdout.resize(120, 30);
    await shows(term, new RegExp(`^ {3}9038fb86 {2}✗ DEAD {7}5/5 {2}\\d\\d:\\d\\d:\\d\\d {2}${error} {2}${url}$`, 'm'));
    await term.press(KEYS.enter);
    await shows(term, '#2  2026-01-01 09:00:30  no answer');
    expect(term.screen()).toContain(` ${id} · attempt 5/5 · job cd926fe7`);
    expect(term.screen()).toContain(`   to ${url} · ingest.succeeded · unsigned`);
    expect(term.screen().at(-1)).toBe(' ? help  : command  q quit  ↓/j move  Enter attempts  s status  / url  r reset  n retry now');
    for (const line of term.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(120);

    // At 40 columns the whole id would push out the attempt and the job: the header names the delivery as the list does.
    term.stdout.resize(40, 30);
    await shows(term, ' 9038fb86 · attempt 5/5 · job cd926fe7');
    expect(term.screen()).not.toContain(` ${id} · attempt 5/5 · job cd926fe7`);
  });

  it('numbers attempts on across a reset and shows the reset between them, oldest first', async () => {
    const { term } = await start();
    await shows(term, '4 matching');
    await term.press(KEYS.down, KEYS.down, KEYS.down, KEYS.enter);
    await shows(term, '#3  2026-01-01 09:30:01  HTTP 503  12 ms');
    fits(term);
    const screen = term.text();
    expect(screen).toContain('── reset by ada@ops (cli) at 2026-01-01 09:30:00: a new round after #2');
    expect(screen.indexOf('#2  ')).toBeLessThan(screen.indexOf('── reset'));
    expect(screen.indexOf('── reset')).toBeLessThan(screen.indexOf('#3  '));
  });

  it('refetches when a delivery.state event arrives', async () => {
    const { source, term } = await start();
    await shows(term, '4 matching');
    source.rows.push(delivery(6, 'PENDING'));
    source.emit({ type: 'delivery.state', message: 'delivery d6 PENDING' });
    await shows(term, '5 matching');
  });
});

describe('status view', () => {
  it('counts DEAD deliveries and follows delivery events', async () => {
    const { source, term } = await start(statusView);
    await shows(term, 'webhooks ✗ 2 DEAD deliveries · ◐ 1 PENDING · ● 1 DELIVERED · :deliveries');
    fits(term);
    source.rows.push(delivery(7, 'DEAD'));
    source.emit({ type: 'delivery.state', level: 'warn', message: 'delivery d7 of job j7 DEAD (attempt 5)' });
    await shows(term, '✗ 3 DEAD deliveries');
  });

  it('keeps the last counts while the daemon is away, where a failed re-read would have dropped the line', async () => {
    const { source, term } = await start(statusView);
    await shows(term, '✗ 2 DEAD deliveries');
    source.setLink({ kind: 'connecting' });
    await shows(term, 'stale');
    source.countsError = new TypeError('fetch failed');
    source.emit({ type: 'delivery.state', message: 'delivery d6 PENDING' });
    while (source.failedCountReads === 0) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect(term.text()).toContain('webhooks ✗ 2 DEAD deliveries');
  });

  it('keeps the last counts after a failed read while connected (a timeout is not a daemon without deliveries)', async () => {
    const { source, term } = await start(statusView);
    await shows(term, '✗ 2 DEAD deliveries');
    source.countsError = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    source.emit({ type: 'delivery.state', message: 'delivery d6 PENDING' });
    while (source.failedCountReads === 0) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect(term.text()).not.toContain('stale');
    expect(term.text()).toContain('webhooks ✗ 2 DEAD deliveries');
  });

  it('shows no webhooks line for a daemon that answers 412 (no deliveries in this process)', async () => {
    const { source, term } = await start(statusView);
    await shows(term, '✗ 2 DEAD deliveries');
    source.countsError = Object.assign(new Error('ingest does not run in this daemon process'), { data: { code: 'PRECONDITION_FAILED', httpStatus: 412 } });
    source.emit({ type: 'delivery.state', message: 'delivery d6 PENDING' });
    await expect.poll(() => term.text()).not.toContain('webhooks');
    expect(term.text()).toContain('COMPONENTS');
  });
});

describe('jobs view', () => {
  it("shows a job's callback delivery in its detail and d opens it in the Deliveries view, selected with its log", async () => {
    const { source, term } = await start(jobsView, deliveriesView);
    const dead = source.rows[1]!;
    source.jobs = [{ ...job(), ingest_job_id: dead.ingest_job_id, status: 'SUCCEEDED', delivery: { ...dead, status: 'DEAD', finished_at: '2026-01-01T10:00:00.000Z' } }];
    source.emit({ type: 'job.state', message: 'job changed' });
    await shows(term, 'JOBS  1 in all statuses');
    await term.press(KEYS.enter);
    await shows(term, 'delivery ✗ DEAD · attempt 5/5 · gave up 2026-01-01 10:00:00 · d opens it');
    expect(term.text()).toContain('last error receiver answered HTTP 503');
    fits(term);
    await term.press('d');
    await shows(term, `DELIVERIES  1 matching · all statuses · job ${dead.ingest_job_id.slice(0, 8)}`);
    await shows(term, '#2  2026-01-01 09:00:30  no answer');
    expect(term.text()).toContain(`${dead.id} · attempt 5/5 · job j2000000`);
    fits(term);
  });

  it('shows the whole short id, a time-wide CREATED, as much of the outcome as fits and the whole error in the detail; its hints fit 80 columns', async () => {
    const { source, term } = await start(jobsView);
    const error = 'the dataset has no ingested tables yet; upload a file first';
    const now = new Date().toISOString();
    source.jobs = [
      { ...job(), ingest_job_id: 'd6199c45-21ad-4a6e-bb25-6f6bd984463e', job_kind: 'DESCRIBE_PASS', status: 'FAILED', created_at: now, result_json: { error }, callback: null },
      { ...job(), ingest_job_id: 'cd926fe7-b8e2-436c-bce4-16d19f662521', status: 'SUCCEEDED', created_at: now, result_json: { row_count: 2 } },
    ];
    source.emit({ type: 'job.state', message: 'job changed' });
    await shows(term, 'JOBS  2 in all statuses');
    fits(term);
    // The id whole, then the time and the outcome two spaces after it (not 16 cells for an 8-character time).
    expect(term.text()).toMatch(/^ ID {8}KIND {14}STATUS {7}CREATED {3}OUTCOME$/m);
    expect(term.text()).toMatch(/^ d6199c45 {2}DESCRIBE_PASS {5}✗ FAILED {5}\d\d:\d\d:\d\d {2}the dataset has no ingested…$/m);
    expect(term.text()).toMatch(/^ cd926fe7 {2}PARSE_AND_INGEST {2}● SUCCEEDED {2}\d\d:\d\d:\d\d {2}2 rows$/m);
    expect(term.screen().at(-1)).toBe(' ? help  : command  q quit  ↓/j move  Enter detail  s status  d delivery');
    await term.press(KEYS.enter);
    await shows(term, 'callback none');
    expect(term.text().replace(/\s+/g, ' ')).toContain(`error ${error}`);
    fits(term);
    term.stdout.resize(120, 30);
    await shows(term, new RegExp(`^ d6199c45 {2}DESCRIBE_PASS {5}✗ FAILED {5}\\d\\d:\\d\\d:\\d\\d {2}${error}$`, 'm'));
    expect(term.screen().at(-1)).toBe(' ? help  : command  q quit  ↓/j move  Enter detail  s status  d delivery  c cancel');
  });

  it('says when a job has no delivery to open', async () => {
    const { term } = await start(jobsView, deliveriesView);
    await shows(term, 'JOBS  1 in all statuses');
    await term.press(KEYS.enter);
    await shows(term, 'delivery none yet: written when the job finishes');
    await term.press('d');
    await shows(term, 'job a1b2c3d4 has no callback delivery yet (it is written when the job finishes)');
  });

  it('lists jobs with the callback secret masked and cancels after y', async () => {
    const { term } = await start(jobsView);
    await shows(term, 'JOBS  1 in all statuses');
    fits(term);
    await term.press(KEYS.enter);
    await shows(term, 'callback https://hooks.example.com/j · secret *** · headers X-Key');
    await term.press('c');
    await shows(term, 'cancel job a1b2c3d4? y cancels it');
    await term.press('y');
    await shows(term, 'job a1b2c3d4 is CANCELLED');
  });

  it('asks before cancelling a job the way every question asks: n keeps it like Esc', async () => {
    const { term } = await start(jobsView);
    await shows(term, 'JOBS  1 in all statuses');
    await term.press('c');
    await shows(term, 'cancel job a1b2c3d4? y cancels it (callback reports CANCELLED), Esc keeps it');
    await term.press('n');
    await expect.poll(() => term.text()).not.toContain('cancel job a1b2c3d4?');
    expect(term.text()).not.toContain('CANCELLED');
  });
});
