import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryDetail, DeliverySelector, DeliveryView, JobView } from '@portico/daemon/control';
import type { ControlApi } from '../control/control-source.js';
import { LiveStore } from '../live/live-store.js';
import { App } from '../shell/app.js';
import { FakeSource } from '../test-support/fake-source.js';
import { KEYS, renderInTerminal, type TestTerminal } from '../test-support/terminal.js';
import { deliveriesView } from './deliveries-view.js';
import { jobsView } from './jobs-view.js';

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
  };
}

class ApiSource extends FakeSource {
  rows: DeliveryView[] = [delivery(1, 'DEAD'), delivery(2, 'DEAD', 'https://other.example.org/x'), delivery(3, 'DELIVERED'), delivery(4, 'PENDING')];
  listInputs: Array<Record<string, unknown>> = [];
  previews: DeliverySelector[] = [];
  resets: Array<DeliverySelector & { actor?: string }> = [];
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
            { attempt: 1, worker: 'w', started_at: '2026-01-01T09:00:00.000Z', duration_ms: 41, status_code: 503, error: 'receiver answered HTTP 503', response_body: 'busy' },
            { attempt: 2, worker: 'w', started_at: '2026-01-01T09:00:30.000Z', duration_ms: 10000, status_code: null, error: 'timeout: no answer within 10000 ms', response_body: null },
          ],
        }),
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
      list: { query: async () => ({ items: [job()], total: 1, limit: 200, offset: 0 }) },
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
  };
}

let term: TestTerminal | undefined;
let store: LiveStore | undefined;
afterEach(() => {
  term?.instance.unmount();
  store?.stop();
});

async function start(view = deliveriesView): Promise<{ source: ApiSource; term: TestTerminal }> {
  const source = new ApiSource();
  store = new LiveStore(source, source.status);
  store.start();
  source.setLink({ kind: 'open' });
  term = renderInTerminal(<App store={store} source={source} views={[view]} color={false} flashMs={60_000} />);
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
    expect(term.text()).toMatch(/d1000000 {2}j1000000 {2}✗ DEAD\s+5\/5\s+503\s+01-01 10:00\s+https:\/\/hooks\.ex/);
    expect(term.text()).toMatch(/◐ PENDING\s+2\/5\s+503\s+in \d+d/);
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

  it('refetches when a delivery.state event arrives', async () => {
    const { source, term } = await start();
    await shows(term, '4 matching');
    source.rows.push(delivery(6, 'PENDING'));
    source.emit({ type: 'delivery.state', message: 'delivery d6 PENDING' });
    await shows(term, '5 matching');
  });
});

describe('jobs view', () => {
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
});
