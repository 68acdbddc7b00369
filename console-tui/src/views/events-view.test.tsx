import { afterEach, describe, expect, it } from 'vitest';
import type { DaemonEvent } from '@portico/daemon/control';
import { LiveStore } from '../live/live-store.js';
import { App } from '../shell/app.js';
import { FakeSource } from '../testing/fake-source.js';
import { renderInTerminal, screenShows, type TestTerminal } from '../testing/terminal.js';
import { eventsView } from './events-view.js';

let term: TestTerminal | undefined;
let store: LiveStore | undefined;
afterEach(() => {
  term?.instance.unmount();
  store?.stop();
  term = undefined;
});

async function start(size: { columns: number; rows: number } = { columns: 80, rows: 24 }): Promise<{ source: FakeSource; term: TestTerminal }> {
  const source = new FakeSource();
  store = new LiveStore(source, source.status);
  store.start();
  source.setLink({ kind: 'open' });
  term = renderInTerminal(<App store={store} source={source} views={[eventsView]} color={false} flashMs={60_000} />, size);
  await new Promise((r) => setTimeout(r, 50));
  return { source, term };
}

function fits(t: TestTerminal, columns: number, rows: number): void {
  expect(t.screen()).toHaveLength(rows);
  for (const line of t.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(columns);
}

const DELIVERY = '7c0e3f0e-5b6a-4f7a-9b8e-0c1d2e3f4a5b';
const JOB = 'a1b2c3d4-0000-4000-8000-000000000001';

/** What a split daemon shows: local info, a relayed worker warning with its details, an error. */
function emitMix(source: FakeSource): void {
  source.emit({ type: 'job.state', message: `job ${JOB} PARSE_AND_INGEST SUCCEEDED` });
  source.emit({
    type: 'log',
    level: 'warn',
    message: 'callback-worker: callback_attempt_failed',
    origin: { bootId: 'w1', mode: 'callback-worker', pid: 5151, host: 'h' },
    details: { id: DELIVERY, job_id: JOB, attempts: '2/5', terminal: false, status: 503, error: 'receiver answered HTTP 503', target: 'https://hooks.example.com/h?sig=***' },
  } satisfies Partial<DaemonEvent> & { message: string });
  source.emit({ type: 'delivery.state', level: 'error', message: `delivery ${DELIVERY} DEAD` });
  source.emit({ type: 'config.reloaded', message: 'config applied' });
}

describe('events view', () => {
  it('shows a warning from another process with its origin and, under it, the delivery, job, attempt, target and error', async () => {
    const { source, term } = await start();
    emitMix(source);
    await screenShows(term, 'EVENTS  4 · following new events');
    fits(term, 80, 24);
    const text = term.text();
    // What happened first; at 80 columns the origin after it wraps under the message column.
    expect(text).toMatch(/! warn {3}log {14}callback-worker: callback_attempt_failed ·\n {38}from callback-worker pid 5151\n/);
    const details = text.slice(text.indexOf('↳'));
    // Wrapped onto lines under the warning: every fact is there, the error text included.
    const joined = details.split('\n').slice(0, 4).map((l) => l.trim()).join(' ');
    for (const part of [`id=${DELIVERY}`, `job_id=${JOB}`, 'attempts=2/5', 'status=503', 'error="receiver answered HTTP 503"', 'target="https://hooks.example.com/h?sig=***"']) {
      expect(joined).toContain(part);
    }
  });

  it('reads a whole warning at 120 columns and keeps it inside the screen', async () => {
    const { source, term } = await start({ columns: 120, rows: 30 });
    emitMix(source);
    await screenShows(term, 'EVENTS  4');
    fits(term, 120, 30);
    expect(term.text()).toContain('callback-worker: callback_attempt_failed · from callback-worker pid 5151');
    expect(term.text()).toMatch(/↳ id=7c0e3f0e-5b6a-4f7a-9b8e-0c1d2e3f4a5b job_id=a1b2c3d4-0000-4000-8000-000000000001 attempts=2\/5/);
  });

  it('reads a long type whole at 120 columns, and at 80 keeps the state that tells one job event from the next', async () => {
    const { source, term } = await start({ columns: 120, rows: 30 });
    const delivery = '01a20f22-b3c5-7422-883d-8c0e9038fb86';
    source.emit({ type: 'infosessions.keys', message: 'API key key_0bcbc9d69c (partner portal) banned' });
    for (const state of ['QUEUED', 'RUNNING', 'SUCCEEDED']) source.emit({ type: 'job.state', message: `job ${JOB} PARSE_AND_INGEST ${state}` });
    source.emit({ type: 'delivery.state', message: `delivery ${delivery} of job ${JOB} DELIVERED (attempt 1)` });
    await screenShows(term, 'EVENTS  5 · following new events');
    fits(term, 120, 30);
    expect(term.text()).toMatch(/· info {3}infosessions\.keys {2}API key key_0bcbc9d69c \(partner portal\) banned$/m);
    for (const state of ['QUEUED', 'RUNNING', 'SUCCEEDED']) expect(term.text()).toMatch(new RegExp(`job\\.state {10}job ${JOB} PARSE_AND_INGEST ${state}$`, 'm'));
    // A delivery's message is longer than its column: it goes on under it, its state included.
    expect(term.text()).toMatch(new RegExp(`delivery ${delivery} of job\\s+${JOB} DELIVERED \\(attempt 1\\)`));

    term.stdout.resize(80, 24);
    await screenShows(term, /^ TIME {6}LEVEL {4}TYPE {13}MESSAGE$/m);
    fits(term, 80, 24);
    const text = term.text();
    for (const state of ['QUEUED', 'RUNNING', 'SUCCEEDED']) expect(text).toMatch(new RegExp(`· info {3}job\\.state {8}job ${JOB}\\n {38}PARSE_AND_INGEST ${state}\\n`));
    expect(text).toContain('DELIVERED (attempt 1)');
  });

  it('filters by level with l and by type with t, says what it shows, and x clears both', async () => {
    const { source, term } = await start();
    emitMix(source);
    await screenShows(term, 'EVENTS  4 ·');
    await term.press('l');
    await screenShows(term, 'EVENTS  2 of 4 · level warn, error · all types');
    expect(term.text()).not.toContain('SUCCEEDED');
    expect(term.text()).toContain('callback_attempt_failed');
    expect(term.text()).toMatch(/✗ error  delivery\.state\s+delivery\s+7c0e3f0e/);
    await term.press('l');
    await screenShows(term, 'EVENTS  1 of 4 · level error · all types');
    expect(term.text()).not.toContain('callback_attempt_failed');
    await term.press('x', 't');
    // Types in name order: config.reloaded, delivery.state, job.state, log.
    await screenShows(term, 'EVENTS  1 of 4 · all levels · type config.reloaded');
    await term.press('t', 't');
    await screenShows(term, 'EVENTS  1 of 4 · all levels · type job.state');
    expect(term.text()).toMatch(/· info {3}job\.state {2}job a1b2c3d4/);
    await term.press('l', 'l');
    await screenShows(term, 'EVENTS  0 of 4 · level error · type job.state');
    expect(term.text()).toContain('No events match the filter; l and t change it, x clears it.');
    fits(term, 80, 24);
    await term.press('x');
    await screenShows(term, 'EVENTS  4 · following new events');
  });

  it('keeps following new events that match while filtered', async () => {
    const { source, term } = await start();
    emitMix(source);
    await term.press('l', 'l');
    await screenShows(term, 'EVENTS  1 of 4');
    source.emit({ type: 'log', level: 'error', message: 'a new failure' });
    source.emit({ type: 'log', level: 'info', message: 'routine' });
    await screenShows(term, 'EVENTS  2 of 6 · level error');
    expect(term.text()).toContain('a new failure');
    expect(term.text()).not.toContain('routine');
  });

  it('shows details under warnings, under every event or none with d, and pages over rows of different heights', async () => {
    const { source, term } = await start();
    for (let i = 1; i <= 12; i++) source.emit({ type: 'log', level: 'warn', message: `warning ${i}`, details: { id: `d-${i}`, error: `failure number ${i}` } });
    await screenShows(term, 'EVENTS  12 · following new events');
    // Two lines each: the newest nine fit in the 19 rows below the headings.
    expect(term.text()).toContain('warning 12');
    expect(term.text()).toContain('↳ id=d-12 error="failure number 12"');
    expect(term.text()).not.toContain('warning 2\n');
    await term.press('g');
    await screenShows(term, 'held at 1–9 of 12 · End to follow');
    await term.press('d', 'd');
    await screenShows(term, 'EVENTS  12 · following new events');
    expect(term.text()).not.toContain('↳');
    expect(term.text()).toMatch(/warning 1$/m);
    fits(term, 80, 24);
  });

  it("leaves an info event's details out until d asks for every event's", async () => {
    const { source, term } = await start();
    source.emit({ type: 'delivery.state', message: 'delivery d-1 PENDING (attempt 1)', details: { delivery: 'd-1', attempt: 1 } });
    source.emit({ type: 'log', level: 'error', message: 'broke', details: { error: 'disk full' } });
    await screenShows(term, '↳ error="disk full"');
    expect(term.text()).not.toContain('↳ delivery=d-1');
    await term.press('d');
    await screenShows(term, '↳ delivery=d-1 attempt=1');
  });
});
