// What every view gets from the shell while the link is down or a config save was rejected, as the browser gets it.
import type { ReloadRecord } from '@portico/daemon/control';
import type { ReactNode } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ControlClient } from '../api/control-client';
import { ActionButton } from '../live/action-button';
import { LiveProvider } from '../live/live-context';
import { LiveMark } from '../live/live-mark';
import { initialLiveState, liveReducer, type LiveState } from '../live/live-state';
import { LiveNotices } from './live-notices';

// Today, so the times read without a date (they get one when not today).
const today = (h: number, m: number, s: number): Date => new Date(new Date().setHours(h, m, s, 0));
const dropped = today(14, 2, 11).getTime();
const live: LiveState = liveReducer(initialLiveState, { type: 'subscription-started' });
const down: LiveState = liveReducer(live, { type: 'socket-closed', at: dropped });
const rejected: ReloadRecord = {
  id: 'i:3',
  trigger: 'file',
  startedAt: today(14, 3, 5).toISOString(),
  durationMs: 2,
  result: 'rejected',
  diagnostics: [{ severity: 'error', file: '/etc/portico/portico.hcl', line: 9, column: 7, endLine: 9, endColumn: 12, summary: 'Unsupported argument', detail: 'An argument named "bogus" is not expected here.', text: '' }],
  diff: null,
  error: null,
  sources: [{ path: '/etc/portico/portico.hcl', sha256: 'ab' }],
};

/** The markup's text as a reader gets it. */
function text(html: string): string {
  return html.replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"').replace(/\s+/g, ' ').trim();
}

function inSession(state: LiveState, node: ReactNode): string {
  // The client is never called while rendering to markup.
  return renderToStaticMarkup(<LiveProvider value={{ live: state, client: {} as ControlClient }}>{node}</LiveProvider>);
}

describe('live notices', () => {
  it('say the page is stale since the link dropped, and nothing while live', () => {
    expect(renderToStaticMarkup(<LiveNotices live={live} path="/status" />)).toBe('');
    expect(text(renderToStaticMarkup(<LiveNotices live={down} path="/status" />))).toBe(
      'Disconnected from the daemon — reconnecting by itself. What you see is stale — last update 14:02:11 ; actions are off until the daemon is back.',
    );
  });

  it('name the rejected file and its first problem with a link to Config, except on Config', () => {
    const state = { ...live, rejectedReload: rejected };
    const html = renderToStaticMarkup(<LiveNotices live={state} path="/jobs" />);
    expect(text(html)).toBe('✗ Config save rejected: portico.hcl:9,7-12: Unsupported argument · 14:03:05 . The previous configuration keeps serving. Open Config');
    expect(html).toContain('href="/config"');
    expect(renderToStaticMarkup(<LiveNotices live={state} path="/config" />)).not.toContain('href=');
    expect(text(renderToStaticMarkup(<LiveNotices live={{ ...state, rejectedReload: { ...rejected, result: 'failed', diagnostics: [], error: 'listen EADDRINUSE 0.0.0.0:8080' } }} path="/" />))).toMatch(/^✗ Config reload failed: listen EADDRINUSE 0\.0\.0\.0:8080 ·/);
  });
});

describe('views while the link is down', () => {
  it('disable action buttons with the reason on hover, and enable them again when live', () => {
    const off = inSession(down, <ActionButton type="button">Reload</ActionButton>);
    expect(off).toContain('disabled=""');
    expect(off).toContain('title="Disconnected from the daemon: this works again once it is back."');
    const on = inSession(live, <ActionButton type="button" title="reload now">Reload</ActionButton>);
    expect(on).not.toContain('disabled');
    expect(on).toContain('title="reload now"');
    expect(inSession(live, <ActionButton type="button" disabled>Reload</ActionButton>)).toContain('disabled=""');
  });

  it('read stale with the last update instead of live', () => {
    expect(text(inSession(live, <LiveMark />))).toBe('live');
    expect(text(inSession(down, <LiveMark />))).toBe('stale — last update 14:02:11');
  });
});
