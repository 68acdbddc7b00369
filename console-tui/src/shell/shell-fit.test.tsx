// The shell at the edges of the terminal: tabs that do not fit, a terminal too small, a mistyped command.
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveStore } from '../live/live-store.js';
import { FakeSource } from '../testing/fake-source.js';
import { KEYS, renderInTerminal, type TestTerminal } from '../testing/terminal.js';
import { VIEWS } from '../views/view-registry.js';
import type { ViewDefinition, ViewProps } from '../views/view.js';
import { App } from './app.js';
import { Line } from './line.js';

let term: TestTerminal | undefined;
let store: LiveStore | undefined;
afterEach(() => {
  term?.instance.unmount();
  store?.stop();
});

// The real views' names and aliases, each drawing only its name (their data is not the point here).
const NAMED_VIEWS: ViewDefinition[] = VIEWS.map((v) => ({ ...v, Component: ({ width }: ViewProps): ReactNode => <Line width={width} text={`VIEW ${v.id}`} /> }));

function start(columns: number, rows: number): TestTerminal {
  const source = new FakeSource();
  store = new LiveStore(source, source.status);
  store.start();
  source.setLink({ kind: 'open' });
  term = renderInTerminal(<App store={store} source={source} views={NAMED_VIEWS} color={false} flashMs={60_000} />, { columns, rows });
  return term;
}

describe('console shell at the edges', () => {
  it('counts the tabs that do not fit in words: +1 tab, +N tabs', async () => {
    const t = start(80, 24);
    expect(t.screen()[1]).toMatch(/^ \[status\] {2}events .* \+\d tabs? ›$/);
    expect(Array.from(t.screen()[1]!).length).toBeLessThanOrEqual(80);
    expect(t.screen()[1]).toMatch(/ jobs \+1 tab ›$/);
    await t.press(':deliveries\r');
    await expect.poll(() => t.screen()[1]).toMatch(/^‹ \+\d tabs? .* \[deliveries\]\s*$/);
    t.stdout.resize(60, 24);
    await expect.poll(() => t.screen()[1]).toMatch(/^‹ \+[2-9] tabs .*\[deliveries\]\s*$/);
  });

  it('says the terminal is too small in lines that fit it, not one cut line', async () => {
    const t = start(19, 5);
    expect(t.screen()).toEqual(['Portico: terminal', 'too small (19x5);', 'need 20x6. q quits.', '', '']);
    t.stdout.resize(12, 3);
    await expect.poll(() => t.screen().length).toBe(3);
    for (const line of t.screen()) expect(Array.from(line).length, line).toBeLessThanOrEqual(12);
    expect(t.text()).not.toContain('…');
    expect(t.text()).toContain('need 20x6');
    t.stdout.resize(20, 6);
    await expect.poll(() => t.text()).toContain('VIEW status');
  });

  it('suggests the command a typo was meant to be', async () => {
    const t = start(80, 24);
    await t.press(':', ...'delivereis', KEYS.enter);
    expect(t.screen().at(-1)).toBe(" unknown command 'delivereis'; did you mean 'deliveries'?");
    expect(t.screen()[1]).toContain('[status]');
  });
});
