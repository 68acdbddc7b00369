import { useState, type ReactNode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { useKeyScope } from '../keys/use-keys.js';
import { LiveStore, type LiveStoreOptions } from '../live/live-store.js';
import { FakeSource, sampleConfigStatus, sampleReload } from '../testing/fake-source.js';
import { KEYS, renderInTerminal, type TestTerminal } from '../testing/terminal.js';
import { eventsView } from '../views/events-view.js';
import { statusView } from '../views/status-view.js';
import type { ViewDefinition, ViewProps } from '../views/view.js';
import { App } from './app.js';
import { Line } from './line.js';
import { helpLines } from './help-panel.js';

// The shell's own behaviour, on a fixed set of views (area views come and go).
const SHELL_VIEWS = [statusView, eventsView];

let term: TestTerminal | undefined;
let store: LiveStore | undefined;
afterEach(() => {
  term?.instance.unmount();
  store?.stop();
  term = undefined;
});

function start(size: { columns?: number; rows?: number } = {}, { views = SHELL_VIEWS, source = new FakeSource(), options = {} }: { views?: readonly ViewDefinition[]; source?: FakeSource; options?: LiveStoreOptions } = {}): { source: FakeSource; term: TestTerminal } {
  store = new LiveStore(source, source.status, options);
  store.start();
  source.setLink({ kind: 'open' });
  term = renderInTerminal(<App store={store} source={source} views={views} color={false} flashMs={60_000} />, size);
  return { source, term };
}

/** A view that shows the clock it is given and has one key that would ask the daemon to act. */
function ProbeView({ nowMs, width, keyState }: ViewProps): ReactNode {
  const [acted, setActed] = useState(0);
  useKeyScope('probe', 'Probe', [{ keys: ['x'], description: 'ask the daemon to do something', hint: 'act', daemonAction: true, run: () => setActed((n) => n + 1) }], keyState);
  return <Line width={width} text={`clock ${nowMs} · acted ${acted}`} />;
}
const probeView: ViewDefinition = { id: 'probe', title: 'probe', aliases: [], description: 'probe', Component: ProbeView };
const configProbe: ViewDefinition = { id: 'config', title: 'config', aliases: [], description: 'config', Component: ({ width }) => <Line width={width} text="CONFIG PROBE" /> };

function expectFits(t: TestTerminal, columns: number, rows: number): void {
  const screen = t.screen();
  expect(screen).toHaveLength(rows);
  for (const line of screen) expect(Array.from(line).length, line).toBeLessThanOrEqual(columns);
}

const hintLine = (t: TestTerminal): string => t.screen().at(-1) ?? '';

describe('console shell', () => {
  it('shows the status screen in exactly 80x24, each state as glyph and word, long text cut with …', () => {
    const { term } = start();
    expectFits(term, 80, 24);
    const text = term.text();
    expect(text).toContain('● connected');
    expect(text).toMatch(/store\s+● running/);
    expect(text).toMatch(/gateway\s+◐ starting/);
    expect(text).toMatch(/cds\s+○ stopped/);
    expect(text).toMatch(/callback-worker\s+✗ failed\s+1h 02m\s+SERVICE_URL is not set.*…$/m);
    expect(text).toContain('uptime   1h 02m');
  });

  it('feeds the hint line and the ? help from the same key registry', async () => {
    const { term } = start();
    expect(hintLine(term)).toBe(' ? help  : command  q quit');
    await term.press('?');
    const help = term.text();
    expect(help).toContain('Global keys');
    for (const [key, what] of [['?', 'show or hide this help'], [':', 'switch view'], ['q', 'quit'], ['Tab', 'next view']] as const) {
      expect(help).toMatch(new RegExp(`^ {3}${key.replace('?', '\\?')}\\s+${what}`, 'm'));
    }
    expect(help).toMatch(/:events\s+live list of daemon events/);
    expect(hintLine(term)).toContain('Esc close help');
    expectFits(term, 80, 24);
    await term.press(KEYS.escape);
    expect(term.text()).toContain('COMPONENTS');
  });

  it('wraps a long description in the help under itself instead of cutting it', () => {
    const scopes = [{ id: 'x', title: 'X', bindings: [{ keys: ['R'], description: 'reset every DEAD delivery that matches the current filter, after showing how many', run: () => {} }] }];
    const lines = helpLines(scopes, [], 50).map((l) => l.text);
    expect(lines.slice(1, 4)).toEqual([
      '   R            reset every DEAD delivery that',
      '                matches the current filter, after',
      '                showing how many',
    ]);
    expect(lines.every((l) => l.length <= 50 && !l.includes('…'))).toBe(true);
  });

  it('says in the help when the current view takes a global key for its own', () => {
    const noop = (): void => {};
    const global = { id: 'global', title: 'Global', bindings: [{ keys: ['r'], description: 're-read the daemon status now', run: noop }, { keys: ['q'], description: 'quit', run: noop }] };
    const view = { id: 'deliveries', title: 'Deliveries', state: 'listed' as const, bindings: [{ keys: ['r'], description: 'reset DEAD', hint: 'reset', run: noop }] };
    const joined = (scopes: Parameters<typeof helpLines>[0]): string => helpLines(scopes, [], 120).map((l) => l.text).join('\n');
    expect(joined([global, view])).toMatch(/^ {3}r\s+re-read the daemon status now \(not in this view: there r is reset, see Deliveries keys\)$/m);
    expect(joined([global, view])).toMatch(/^ {3}q\s+quit$/m);
    expect(joined([global, { ...view, state: 'off' as const }])).toMatch(/^ {3}r\s+re-read the daemon status now$/m);
    expect(joined([global])).not.toContain('not in this view');
  });

  it('handles keys that arrive together one after the other: jjj scrolls three lines', async () => {
    const { term } = start({ columns: 80, rows: 12 });
    await term.press('?');
    expect(hintLine(term)).toContain('more');
    const at = (): number => Number(/lines (\d+)–/.exec(term.text())?.[1]);
    expect(at()).toBe(1);
    await term.press('jjj');
    await expect.poll(at).toBe(4);
    await term.press('kk');
    await expect.poll(at).toBe(2);
  });

  it('widens the help\'s name column to the longest command, so :infosessions is not cut', () => {
    const views = [{ ...statusView, id: 'infosessions', aliases: ['i'], description: 'browse the sessions' }];
    const lines = helpLines([], views, 80).map((l) => l.text);
    expect(lines).toContain('   :infosessions browse the sessions (i)');
  });

  it('lists the current view’s own keys in the help and the hint line', async () => {
    const { term } = start();
    await term.press(':', ...'events', KEYS.enter);
    expect(hintLine(term)).toBe(' ? help  : command  q quit  ↓/j scroll  End/G follow  l level  t type');
    await term.press('?');
    expect(term.text()).toContain('Events keys');
    expect(term.text()).toMatch(/End\/G\s+jump to the newest and follow new events/);
  });

  it('switches views in command mode, by name, alias or unique prefix', async () => {
    const { term } = start();
    await term.press(':');
    expect(hintLine(term)).toMatch(/^:\s+status, events, help, quit · Tab completes · Esc cancels/);
    await term.press('e', 'v');
    expect(hintLine(term)).toMatch(/^:ev\s+events/);
    await term.press(KEYS.enter);
    expect(term.screen()[1]).toContain('[events]');
    expect(term.text()).toContain('EVENTS  0 · following new events');
    await term.press(':', 's', 't', 'a', KEYS.tab);
    expect(hintLine(term)).toMatch(/^:status/);
    await term.press(KEYS.enter);
    expect(term.screen()[1]).toContain('[status]');
  });

  it('takes a command typed ahead in one chunk, as tmux send-keys or a paste delivers it', async () => {
    const { term } = start();
    await term.press(':events\r');
    expect(term.screen()[1]).toContain('[events]');
    await term.press(':st\t\r');
    expect(term.screen()[1]).toContain('[status]');
  });

  it('says so for an unknown command and cancels with Esc', async () => {
    const { term } = start();
    await term.press(':', ...'nope', KEYS.enter);
    expect(hintLine(term)).toContain("unknown command 'nope'; views: status, events");
    await term.press(':', ...'evnets', KEYS.enter);
    expect(hintLine(term)).toBe(" unknown command 'evnets'; did you mean 'events'?");
    expect(term.screen()[1]).toContain('[status]');
    await term.press(':', 'x', KEYS.escape);
    expect(hintLine(term)).toBe(' ? help  : command  q quit');
  });

  it('cycles views with Tab', async () => {
    const { term } = start();
    await term.press(KEYS.tab);
    expect(term.screen()[1]).toContain('[events]');
    await term.press(KEYS.tab);
    expect(term.screen()[1]).toContain('[status]');
  });

  it('goes to a view by its place in the tab bar with its digit; digits typed after : stay in the prompt', async () => {
    const { term } = start();
    await term.press('2');
    expect(term.screen()[1]).toContain('[events]');
    await term.press('1');
    expect(term.screen()[1]).toContain('[status]');
    // Two views here: 3 is no view's.
    await term.press('3');
    expect(term.screen()[1]).toContain('[status]');
    await term.press(':', '2');
    expect(term.screen()[1]).toContain('[status]');
    expect(hintLine(term)).toContain(':2');
    await term.press(KEYS.escape, '?');
    expect(term.text()).toMatch(/1-2\s+go to the view at that place in the tab bar/);
  });

  it('quits on q', async () => {
    const { term } = start();
    const exited = term.instance.waitUntilExit();
    await term.press('q');
    await expect(exited).resolves.toBeUndefined();
  });

  it('redraws to the new size on resize, never wider than the terminal', async () => {
    const { term } = start();
    term.stdout.resize(50, 16);
    await expect.poll(() => term.screen().length).toBe(16);
    expectFits(term, 50, 16);
    expect(term.text()).toContain('✗ failed');
    term.stdout.resize(120, 30);
    await expect.poll(() => term.screen().length).toBe(30);
    expectFits(term, 120, 30);
    expect(term.text()).toContain('SERVICE_URL is not set; the callback worker needs it to deliver webhooks');
  });

  it('updates the status and the events list when an event arrives', async () => {
    const { source, term } = start();
    source.emit({ type: 'component.state', message: 'gateway running: listening on :8080', component: { name: 'gateway', state: 'running', since: new Date().toISOString(), detail: 'listening on :8080' } });
    await expect.poll(() => term.text()).toMatch(/gateway\s+● running\s+0s\s+listening on :8080/);
    await term.press(KEYS.tab);
    expect(term.text()).toMatch(/\d\d:\d\d:\d\d {2}· info {3}component.state {2}gateway running: listening on :8080/);
  });

  it('holds the events list where the operator scrolled it, and follows again on End', async () => {
    const { source, term } = start();
    await term.press(':events\r');
    for (let i = 1; i <= 40; i++) source.emit({ message: `event ${i}` });
    await expect.poll(() => term.text()).toContain('EVENTS  40 · following new events');
    expect(term.screen()[22]).toContain('event 40');
    await term.press(KEYS.up, KEYS.up);
    expect(term.text()).toContain('held at 20–38 of 40 · End to follow');
    source.emit({ message: 'event 41' });
    await expect.poll(() => term.text()).toContain('held at 20–38 of 41 · End to follow');
    expect(term.screen()[22]).toContain('event 38');
    await term.press(KEYS.end);
    expect(term.screen()[22]).toContain('event 41');
    expectFits(term, 80, 24);
  });

  it('says disconnected — reconnecting… and how old the screen is when the link drops, and reads the status again when it is back', async () => {
    const { source, term } = start({ columns: 120, rows: 30 });
    source.setLink({ kind: 'lost', problem: { code: 'unreachable', reason: 'connection refused' } });
    await expect.poll(() => term.screen()[0]).toMatch(/✗ disconnected — reconnecting… · stale — last update \d\d:\d\d:\d\d \(connection refused\)  http/);
    const reads = source.statusReads;
    source.status = { ...source.status, version: '0.2.0' };
    source.setLink({ kind: 'open' });
    await expect.poll(() => term.screen()[0]).toContain('● connected');
    await expect.poll(() => term.text()).toContain('version  0.2.0');
    expect(source.statusReads).toBe(reads + 1);
  });

  it('stops the clock the views count on while disconnected, and runs it again when the link is back', async () => {
    const { source, term } = start({}, { views: [probeView], options: { now: () => 1_000 } });
    expect(term.screen()[2]).toMatch(/^clock \d{13} · acted 0/);
    source.setLink({ kind: 'lost', problem: null });
    await expect.poll(() => term.screen()[2]).toMatch(/^clock 1000 · acted 0/);
    source.setLink({ kind: 'open' });
    await expect.poll(() => term.screen()[2]).toMatch(/^clock \d{13} · acted 0/);
  });

  it('turns the daemon’s actions off while disconnected: left out of the hints, refused with the reason, back with the link', async () => {
    const { source, term } = start({}, { views: [probeView] });
    expect(hintLine(term)).toBe(' ? help  : command  q quit  x act');
    await term.press('x');
    expect(term.screen()[2]).toContain('acted 1');
    source.setLink({ kind: 'lost', problem: null });
    await expect.poll(() => hintLine(term)).toBe(' ✗ actions off while disconnected · ? help  : command  q quit');
    await term.press('x');
    expect(term.screen()[2]).toContain('acted 1');
    expect(hintLine(term)).toBe(' x act: off while disconnected; it works again once the daemon is back');
    await term.press('?');
    expect(term.text()).toMatch(/x\s+ask the daemon to do something \(actions off while disconnected\)/);
    await term.press(KEYS.escape);
    source.setLink({ kind: 'open' });
    await expect.poll(() => hintLine(term)).toBe(' ? help  : command  q quit  x act');
    await term.press('x');
    expect(term.screen()[2]).toContain('acted 2');
  });

  it('shows a rejected config save on every view until a reload applies; ! opens the Config view', async () => {
    const source = new FakeSource();
    source.configStatus = sampleConfigStatus(sampleReload('rejected'));
    const { term } = start({}, { views: [statusView, eventsView, configProbe], source });
    await expect.poll(() => term.screen()[2]).toMatch(/^ ✗ config rejected: portico\.hcl:9[:,]7:? Unsupported argument · ! open Config$/);
    expectFits(term, 80, 24);
    expect(term.text()).toContain('COMPONENTS');
    await term.press(KEYS.tab);
    expect(term.screen()[1]).toContain('[events]');
    expect(term.screen()[2]).toContain('✗ config rejected');
    await term.press('!');
    expect(term.screen()[1]).toContain('[config]');
    expect(term.screen()[2]).toMatch(/✗ config rejected: .*Unsupported argument · \d\d:\d\d:\d\d$/);
    expect(term.screen()[3]).toBe('CONFIG PROBE');
    source.configStatus = sampleConfigStatus(sampleReload('applied'));
    source.emit({ type: 'config.reloaded', message: 'gateway config reload (file) applied in 3 ms: unchanged' });
    await expect.poll(() => term.screen()[2]).toBe('CONFIG PROBE');
    expect(term.text()).not.toContain('config rejected');
    expectFits(term, 80, 24);
  });
});
