import { afterEach, describe, expect, it } from 'vitest';
import type { ApiKeySummary, InfosessionsSourceStatus, SessionView } from '@portico/daemon/control';
import type { ControlApi } from '../control/control-source.js';
import { LiveStore } from '../live/live-store.js';
import { App } from '../shell/app.js';
import { FakeSource } from '../testing/fake-source.js';
import { KEYS, renderInTerminal, type TestTerminal } from '../testing/terminal.js';
import { detailLines, infosessionsView } from './infosessions-view.js';
import { keysView } from './keys-view.js';

function session(id: number, employer: string, date: string, description: string | null = null): SessionView {
  return {
    id, employer, date, day: 'January', start_time: '11:30', end_time: '13:30', description, website: 'example.com',
    building: { code: 'DC', name: 'William G. Davis Computer Research Centre', room: '1301', latitude: 43.47, longitude: -80.54, map_url: null },
    audience: ['MATH - Computer Science'], link: null, students: 'Co-op Students', line: id + 1,
  };
}

const LONG = Array.from({ length: 30 }, (_v, i) => `Sentence ${i + 1} of the long description.`).join(' ');

const SESSIONS = [
  session(1, 'Google', '2016-01-05', 'Info session to discuss options at Google for majors outside of Computer Science.'),
  session(2, 'Mattermost Inc. with a very long employer name that cannot fit in eighty columns', '2016-01-06'),
  session(3, 'Deloitte', '2016-01-07', 'Want to know what makes Deloitte different?'),
  session(4, 'Wordy Corp', '2016-01-08', LONG),
];

const sourceStatus = (error: string | null, loadedAt: string): InfosessionsSourceStatus => ({
  sessions: { file: '/x/config/data/infosessions.csv', loadedAt, rows: 4, rejected: [{ line: 9, reason: 'date "2016-13-01" must be yyyy-mm-dd' }], warnings: [], error: error ? { message: error, at: '2026-01-01T10:00:01.000Z' } : null },
  buildings: { file: '/x/config/data/buildings.csv', loadedAt: '2026-01-01T10:00:00.000Z', rows: 10, rejected: [], warnings: [], error: null },
});

class ApiSource extends FakeSource {
  searches: Array<string | undefined> = [];
  sourceError: string | null = null;
  /** When the sessions file was loaded: today, as after a daemon start, unless a test says otherwise. */
  loadedAt = new Date().toISOString();
  keys: ApiKeySummary[] = [];
  created: Array<{ name: string; monthlyLimit: number | null }> = [];
  readonly api = {
    infosessions: {
      list: {
        query: async (input: { search?: string }) => {
          this.searches.push(input.search);
          const items = SESSIONS.filter((s) => !input.search || `${s.employer} ${s.description}`.toLowerCase().includes(input.search.toLowerCase()));
          return { total: items.length, offset: 0, items, audiences: [] };
        },
      },
      source: { query: async () => sourceStatus(this.sourceError, this.loadedAt) },
    },
    keys: {
      list: { query: async () => structuredClone(this.keys) },
      create: {
        mutate: async ({ name, monthlyLimit = null }: { name: string; monthlyLimit?: number | null }) => {
          this.created.push({ name, monthlyLimit });
          const key: ApiKeySummary = { id: `key_${this.keys.length + 1}`, name, masked: 'abcd***', state: 'active', monthlyLimit, requestsThisMonth: 0, createdAt: '2026-01-01T00:00:00.000Z', lastUsedAt: null, stateChangedAt: null };
          this.keys.push(key);
          return { key, secret: 'abcd0123456789abcdef0123456789ab' };
        },
      },
      ban: { mutate: async ({ id }: { id: string }) => this.#set(id, 'banned') },
      unban: { mutate: async ({ id }: { id: string }) => this.#set(id, 'active') },
      revoke: { mutate: async ({ id }: { id: string }) => this.#set(id, 'revoked') },
    },
  } as unknown as ControlApi;
  #set(id: string, state: ApiKeySummary['state']): ApiKeySummary {
    const key = this.keys.find((k) => k.id === id)!;
    key.state = state;
    return key;
  }
}

let term: TestTerminal | undefined;
let store: LiveStore | undefined;
afterEach(() => {
  term?.instance.unmount();
  store?.stop();
});

async function start(view: typeof infosessionsView): Promise<{ source: ApiSource; term: TestTerminal }> {
  const source = new ApiSource();
  store = new LiveStore(source, source.status);
  store.start();
  source.setLink({ kind: 'open' });
  term = renderInTerminal(<App store={store} source={source} views={[view]} color={false} flashMs={60_000} />);
  await new Promise((r) => setTimeout(r, 50));
  return { source, term };
}

/** Waits until the screen shows `text` (the fake daemon answers asynchronously). */
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

describe('infosessions view', () => {
  it('lists the sessions in 80 columns with the source line, and opens the detail with Enter', async () => {
    const { term } = await start(infosessionsView);
    await shows(term, 'INFOSESSIONS  4 sessions');
    fits(term);
    const text = term.text();
    expect(text).toContain('INFOSESSIONS  4 sessions');
    expect(text).toMatch(/infosessions\.csv · 4 rows · loaded \d\d:\d\d:\d\d · /);
    expect(text).toContain('1 row skipped (first: line 9');
    expect(text).toMatch(/2016-01-05 {2}11:30-13:30 {2}Google\s+DC 1301/);
    // The employer column takes what date, time and building leave: 44 cells at 80 columns.
    expect(text).toContain('Mattermost Inc. with a very long employer n…  DC 1301');
    await term.press(KEYS.enter);
    fits(term);
    expect(term.text()).toContain('2016-01-05 (January)  11:30-13:30');
    expect(term.text()).toContain('at William G. Davis Computer Research Centre, 1301 [DC]');
    expect(term.text()).toContain('Info session to discuss options at Google');
    expect(term.text()).toContain('Co-op Students');
  });

  it("marks a session's missing website, day, students and audience with the web dashboard's dash", () => {
    const bare: SessionView = { ...session(5, 'Accenture', '2013-09-05'), website: null, day: null, students: null, audience: null };
    const lines = detailLines(bare, 80).map((l) => l.text);
    expect(lines).toContain('web —  ·  —');
    expect(lines).toContain('2013-09-05 (—)  11:30-13:30');
    expect(lines).toContain('for —');
    expect(lines.join('\n')).not.toMatch(/ -( |$)/m);
  });

  it('filters on the daemon with / and clears with Esc; q typed in the filter does not quit', async () => {
    const { source, term } = await start(infosessionsView);
    await term.press('/');
    await term.press('d', 'e', 'l', 'o', 'i', 't', 't', 'e', 'q', KEYS.backspace);
    expect(term.text()).toContain('/deloitte█');
    await term.press(KEYS.enter);
    await shows(term, '1 matching "deloitte"');
    expect(source.searches.at(-1)).toBe('deloitte');
    expect(term.text()).toContain('1 matching "deloitte"');
    expect(term.text()).not.toContain('Google');
    await term.press(KEYS.escape);
    await shows(term, '4 sessions');
  });

  it('a pasted "/text" goes into the filter whole, its letters never running as commands', async () => {
    const { source, term } = await start(infosessionsView);
    await shows(term, '4 sessions');
    // One input chunk, as a paste or tmux send-keys delivers it: q and r would quit and refresh.
    await term.press('/qrdeloitte');
    await expect.poll(() => term.text()).toContain('/qrdeloitte█');
    await term.press(KEYS.backspace.repeat(10), 'deloitte\r');
    await shows(term, '1 matching "deloitte"');
    expect(source.searches.at(-1)).toBe('deloitte');
  });

  it('filters as you type, without Enter; Esc while typing goes back to the filter from before', async () => {
    const { source, term } = await start(infosessionsView);
    await shows(term, '4 sessions');
    await term.press('/', ...'deloi');
    // Still typing (the prompt is open), and the list already follows.
    expect(term.text()).toContain('/deloi█');
    await shows(term, '1 matching "deloi"');
    expect(term.text()).toContain('/deloi█');
    expect(term.text()).not.toContain('Google');
    expect(source.searches).toContain('deloi');
    await term.press(KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, ...'goo');
    await shows(term, '1 matching "goo"');
    expect(term.text()).toMatch(/2016-01-05 {2}11:30-13:30 {2}Google/);
    await term.press(KEYS.escape);
    await shows(term, '4 sessions');
    expect(term.text()).not.toContain('█');
    await term.press('/', ...'deloitte', KEYS.enter);
    await shows(term, '1 matching "deloitte"');
    expect(term.text()).toContain('filter: deloitte');
  });

  it('scrolls a long description in the detail with J and K', async () => {
    const { term } = await start(infosessionsView);
    await shows(term, '4 sessions');
    await term.press('G', KEYS.enter);
    await shows(term, /── lines 1–\d+ of \d+ · J\/K scroll ─+/);
    fits(term);
    expect(term.text()).toContain('Wordy Corp  #4');
    expect(term.text()).not.toContain('Sentence 30 of the long description.');
    const [, shown, all] = /lines 1–(\d+) of (\d+)/.exec(term.text())!.map(Number);
    const total = all!;
    for (let i = 0; i < total - shown!; i++) await term.press('J');
    await shows(term, 'Sentence 30 of the long description.');
    expect(term.text()).toMatch(new RegExp(`lines \\d+–${total} of ${total}`));
    expect(term.text()).not.toContain('Wordy Corp  #4');
    await term.press('K');
    expect(term.text()).toMatch(new RegExp(`lines \\d+–${total - 1} of ${total}`));
    fits(term);
    // Another session starts its detail from the top.
    await term.press(KEYS.up);
    await shows(term, 'Deloitte  #3');
    expect(term.text()).toContain('Want to know what makes Deloitte different?');
  });

  it('dates a load that was not today, in local 24-hour time', async () => {
    const { source, term } = await start(infosessionsView);
    await shows(term, '4 sessions');
    source.loadedAt = '2026-01-01T10:00:05.000Z';
    source.emit({ type: 'infosessions.reloaded', message: 'infosessions: reloaded' });
    const loaded = new Date(source.loadedAt);
    const two = (n: number) => String(n).padStart(2, '0');
    await shows(term, `infosessions.csv · 4 rows · loaded ${loaded.getFullYear()}-${two(loaded.getMonth() + 1)}-${two(loaded.getDate())} ${two(loaded.getHours())}:${two(loaded.getMinutes())}:05`);
  });

  it('shows a file that could not be read, and refetches on an infosessions.reloaded event', async () => {
    const { source, term } = await start(infosessionsView);
    await shows(term, '4 sessions');
    source.sourceError = 'line 2: a quoted field is never closed (missing ")';
    source.emit({ type: 'infosessions.reloaded', level: 'error', message: 'infosessions: bad file' });
    await shows(term, '✗ infosessions.csv');
    expect(term.text()).toContain('✗ infosessions.csv: line 2: a quoted field is never closed (missing ") — still');
  });
});

describe('keys view', () => {
  it('creates a key with a monthly limit, asking again when the limit is not a number; shows it once', async () => {
    const { source, term } = await start(keysView);
    await shows(term, 'No API keys yet. Press n to create one.');
    await term.press('n', ...'mobile', KEYS.enter);
    expect(term.text()).toContain('monthly limit for mobile (calls a month; empty = no limit): █');
    await term.press(...'lots', KEYS.enter);
    expect(term.text()).toContain('monthly limit "lots" is not a whole number: type e.g. 10000, or leave it empty');
    expect(term.text()).toContain('monthly limit for mobile (calls a month; empty = no limit): lots█');
    expect(source.created).toEqual([]);
    fits(term);
    await term.press(KEYS.backspace, KEYS.backspace, KEYS.backspace, KEYS.backspace, ...'1000', KEYS.enter);
    await shows(term, 'shown only now');
    expect(source.created).toEqual([{ name: 'mobile', monthlyLimit: 1000 }]);
    // The banner wraps rather than cutting the key, so it can be copied whole.
    expect(term.text().replace(/\s+/g, ' ')).toContain('new key for mobile (limit 1000 calls a month), shown only now: abcd0123456789abcdef0123456789ab');
    await shows(term, /key_1\s+mobile\s+abcd\*\*\*\s+active\s+0\/1000\s+never/);
    fits(term);

    await term.press('n', ...'ci', KEYS.enter, KEYS.enter);
    await shows(term, 'new key for ci (no monthly limit)');
    expect(source.created.at(-1)).toEqual({ name: 'ci', monthlyLimit: null });

    await term.press('n', ...'gone', KEYS.enter, KEYS.escape);
    expect(term.text()).toContain('no key created');
    expect(source.created).toHaveLength(2);
  });

  it('bans a key, and revokes it only after y; Esc keeps it', async () => {
    const { term } = await start(keysView);
    await term.press('n', ...'mobile', KEYS.enter, KEYS.enter);
    await shows(term, /key_1\s+mobile\s+abcd\*\*\*\s+active\s+0\s+never/);
    await term.press('b');
    await shows(term, /key_1\s+mobile\s+abcd\*\*\*\s+banned/);
    expect(term.text()).not.toContain('abcd0123456789abcdef0123456789ab');
    await term.press('x');
    expect(term.text()).toContain('revoke key_1 (mobile) for good? y revokes it, Esc keeps it');
    expect(term.screen().at(-1)).toMatch(/ y yes {2}Esc\/n no/);
    await term.press(KEYS.escape);
    expect(term.text()).not.toContain('for good?');
    expect(term.text()).toMatch(/key_1\s+mobile\s+abcd\*\*\*\s+banned/);
    await term.press('y');
    expect(term.text()).toMatch(/key_1\s+mobile\s+abcd\*\*\*\s+banned/);
    await term.press('x', 'y');
    await shows(term, /key_1\s+mobile\s+abcd\*\*\*\s+revoked/);
  });

  it('keeps the state column before the id when the terminal is narrow', async () => {
    const { term } = await start(keysView);
    await term.press('n', ...'a rather long key name for a partner', KEYS.enter, KEYS.enter);
    await shows(term, /key_1\s+a rather long key name/);
    term.stdout.resize(30, 24);
    await shows(term, /^ NAME\s+STATE\s+THIS MONTH$/m);
    expect(term.text()).not.toContain('key_1');
    expect(term.text()).toMatch(/^ a rathe…\s+active\s+0$/m);
    for (const line of term.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(30);
  });
});
