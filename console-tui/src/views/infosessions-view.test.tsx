import { afterEach, describe, expect, it } from 'vitest';
import type { ApiKeySummary, InfosessionsSourceStatus, SessionView } from '@portico/daemon/control';
import type { ControlApi } from '../control/control-source.js';
import { LiveStore } from '../live/live-store.js';
import { App } from '../shell/app.js';
import { FakeSource } from '../test-support/fake-source.js';
import { KEYS, renderInTerminal, type TestTerminal } from '../test-support/terminal.js';
import { infosessionsView } from './infosessions-view.js';
import { keysView } from './keys-view.js';

function session(id: number, employer: string, date: string, description: string | null = null): SessionView {
  return {
    id, employer, date, day: 'January', start_time: '11:30', end_time: '13:30', description, website: 'example.com',
    building: { code: 'DC', name: 'William G. Davis Computer Research Centre', room: '1301', latitude: 43.47, longitude: -80.54, map_url: null },
    audience: ['MATH - Computer Science'], link: null, students: 'Co-op Students', line: id + 1,
  };
}

const SESSIONS = [
  session(1, 'Google', '2016-01-05', 'Info session to discuss options at Google for majors outside of Computer Science.'),
  session(2, 'Mattermost Inc. with a very long employer name that cannot fit in eighty columns', '2016-01-06'),
  session(3, 'Deloitte', '2016-01-07', 'Want to know what makes Deloitte different?'),
];

const sourceStatus = (error: string | null = null): InfosessionsSourceStatus => ({
  sessions: { file: '/x/config/data/infosessions.csv', loadedAt: '2026-01-01T10:00:00.000Z', rows: 3, rejected: [{ line: 9, reason: 'date "2016-13-01" must be yyyy-mm-dd' }], warnings: [], error: error ? { message: error, at: '2026-01-01T10:00:01.000Z' } : null },
  buildings: { file: '/x/config/data/buildings.csv', loadedAt: '2026-01-01T10:00:00.000Z', rows: 10, rejected: [], warnings: [], error: null },
});

class ApiSource extends FakeSource {
  searches: Array<string | undefined> = [];
  sourceError: string | null = null;
  keys: ApiKeySummary[] = [];
  readonly api = {
    infosessions: {
      list: {
        query: async (input: { search?: string }) => {
          this.searches.push(input.search);
          const items = SESSIONS.filter((s) => !input.search || `${s.employer} ${s.description}`.toLowerCase().includes(input.search.toLowerCase()));
          return { total: items.length, offset: 0, items, audiences: [] };
        },
      },
      source: { query: async () => sourceStatus(this.sourceError) },
    },
    keys: {
      list: { query: async () => structuredClone(this.keys) },
      create: {
        mutate: async ({ name }: { name: string }) => {
          const key: ApiKeySummary = { id: `key_${this.keys.length + 1}`, name, masked: 'abcd***', state: 'active', monthlyLimit: null, requestsThisMonth: 0, createdAt: '2026-01-01T00:00:00.000Z', lastUsedAt: null, stateChangedAt: null };
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
    await shows(term, 'INFOSESSIONS  3 sessions');
    fits(term);
    const text = term.text();
    expect(text).toContain('INFOSESSIONS  3 sessions');
    expect(text).toContain('infosessions.csv · 3 rows · loaded');
    expect(text).toContain('1 row skipped (first: line 9');
    expect(text).toMatch(/2016-01-05 {2}11:30-13:30 {2}Google\s+DC 1301/);
    expect(text).toContain('Mattermost Inc. with a very long …  DC 1301');
    await term.press(KEYS.enter);
    fits(term);
    expect(term.text()).toContain('2016-01-05 (January)  11:30-13:30');
    expect(term.text()).toContain('at William G. Davis Computer Research Centre, 1301 [DC]');
    expect(term.text()).toContain('Info session to discuss options at Google');
    expect(term.text()).toContain('Co-op Students');
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
    await shows(term, '3 sessions');
  });

  it('a pasted "/text" goes into the filter whole, its letters never running as commands', async () => {
    const { source, term } = await start(infosessionsView);
    await shows(term, '3 sessions');
    // One input chunk, as a paste or tmux send-keys delivers it: q and r would quit and refresh.
    await term.press('/qrdeloitte');
    expect(term.text()).toContain('/qrdeloitte█');
    await term.press(KEYS.backspace.repeat(10), 'deloitte\r');
    await shows(term, '1 matching "deloitte"');
    expect(source.searches.at(-1)).toBe('deloitte');
  });

  it('shows a file that could not be read, and refetches on an infosessions.reloaded event', async () => {
    const { source, term } = await start(infosessionsView);
    await shows(term, '3 sessions');
    source.sourceError = 'line 2: a quoted field is never closed (missing ")';
    source.emit({ type: 'infosessions.reloaded', level: 'error', message: 'infosessions: bad file' });
    await shows(term, '✗ infosessions.csv');
    expect(term.text()).toContain('✗ infosessions.csv: line 2: a quoted field is never closed (missing ") — still');
  });
});

describe('keys view', () => {
  it('creates a key showing it once, bans it and revokes it after a confirmation', async () => {
    const { term } = await start(keysView);
    await shows(term, 'No API keys yet. Press n to create one.');
    await term.press('n');
    await term.press('m', 'o', 'b', 'i', 'l', 'e');
    await term.press(KEYS.enter);
    await shows(term, 'shown only now');
    fits(term);
    expect(term.text()).toContain('new key for mobile, shown only now: abcd0123456789abcdef0123456789ab');
    await shows(term, /key_1\s+mobile\s+abcd\*\*\*\s+active\s+0\s+never/);
    await term.press('b');
    await shows(term, /key_1\s+mobile\s+abcd\*\*\*\s+banned/);
    expect(term.text()).toMatch(/key_1\s+mobile\s+abcd\*\*\*\s+banned/);
    expect(term.text()).not.toContain('abcd0123456789abcdef0123456789ab');
    await term.press('x');
    expect(term.text()).toContain('revoke key_1 for good? y revokes, Esc keeps it');
    await term.press('y');
    await shows(term, /key_1\s+mobile\s+abcd\*\*\*\s+revoked/);
    expect(term.text()).toMatch(/key_1\s+mobile\s+abcd\*\*\*\s+revoked/);
  });
});
