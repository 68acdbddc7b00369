import { afterEach, describe, expect, it, vi } from 'vitest';

// Colour support is decided when chalk loads; force it so a colour code could show up at all.
vi.hoisted(() => {
  process.env['FORCE_COLOR'] = '1';
});

const { LiveStore } = await import('../live/live-store.js');
const { FakeSource } = await import('../testing/fake-source.js');
const { renderInTerminal } = await import('../testing/terminal.js');
const { App } = await import('./app.js');

// SGR foreground/background colours: 30–37, 39–47, 49, 90–97, 100–107, 38;… and 48;…
const COLOUR_CODE = /\u001B\[(?:[0-9;]*;)?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9;]*)?m/;

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function screen(color: boolean): string {
  const source = new FakeSource();
  const store = new LiveStore(source, source.status);
  store.start();
  source.setLink({ kind: 'open' });
  const term = renderInTerminal(<App store={store} source={source} color={color} />);
  stops.push(() => term.instance.unmount(), () => store.stop());
  return term.raw();
}

describe('NO_COLOR', () => {
  it('uses colour when allowed (so the next test can fail)', () => {
    expect(screen(true)).toMatch(COLOUR_CODE);
  });

  it('shows no colour at all, every state still readable as glyph + word', () => {
    const raw = screen(false);
    expect(raw).not.toMatch(COLOUR_CODE);
    for (const label of ['● connected', '● running', '◐ starting', '○ stopped', '✗ failed']) expect(raw).toContain(label);
  });
});
