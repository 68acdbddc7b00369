import type { ReactNode } from 'react';
import { Text } from 'ink';
import type { Label } from '../format/state-label.js';
import { staleText } from '../live/freshness.js';
import type { LiveState } from '../live/live-store.js';
import type { ViewDefinition } from '../views/view.js';
import { Tinted } from './theme.js';
import { plural } from '@portico/daemon/display';

/** How the link to the daemon is doing, as glyph + words; why it is down is `problemReason`'s. */
export function connectionLabel({ connection }: Pick<LiveState, 'connection'>): Label {
  switch (connection) {
    case 'connecting':
      return { glyph: '◐', word: 'connecting…', tone: 'busy' };
    case 'connected':
      return { glyph: '●', word: 'connected', tone: 'good' };
    case 'disconnected':
      return { glyph: '✗', word: 'disconnected — reconnecting…', tone: 'bad' };
    case 'refused':
      return { glyph: '✗', word: 'token refused — restart with the right token', tone: 'bad' };
  }
}

/** ` (connection refused)`: why the link is down, or '' when there is no reason worth showing. */
export function problemReason(problem: LiveState['problem']): string {
  // A network reason helps ("connection refused"); a library's wording for anything else does not.
  return problem && problem.code !== 'failed' ? ` (${problem.reason})` : '';
}

/** The first line: the link, and while it is down how old the screen is and why; then where and what the daemon is. */
export function Header({ live, url, nowMs }: { live: LiveState; url: string; nowMs: number }): ReactNode {
  const label = connectionLabel(live);
  const stale = staleText(live, nowMs);
  return (
    <Text wrap="truncate-end">
      <Text bold> Portico </Text>
      <Tinted tone={label.tone} bold>{`${label.glyph} ${label.word}`}</Tinted>
      {stale ? <Tinted tone="busy">{` · ${stale}`}</Tinted> : null}
      {`${problemReason(live.problem)}  ${url}  v${live.status.version} · ${live.status.mode}`}
    </Text>
  );
}

/** The views as tabs; the current one in brackets (and inverse), so it reads without colour. */
export function TabBar({ views, currentId, width }: { views: readonly ViewDefinition[]; currentId: string; width: number }): ReactNode {
  const { shown, hiddenBefore, hiddenAfter } = tabWindow(views.map((v) => v.title), Math.max(0, views.findIndex((v) => v.id === currentId)), width);
  return (
    <Text wrap="truncate-end">
      {hiddenBefore > 0 ? <Text dimColor>{overflowText(hiddenBefore, 'before')}</Text> : null}
      {shown.map((i) => {
        const v = views[i]!;
        return v.id === currentId ? (
          <Text key={v.id} bold inverse>{` [${v.title}] `}</Text>
        ) : (
          <Text key={v.id}>{` ${v.title} `}</Text>
        );
      })}
      {hiddenAfter > 0 ? <Text dimColor>{overflowText(hiddenAfter, 'after')}</Text> : null}
    </Text>
  );
}

/** How many tabs did not fit on one side: `‹ +2 tabs` before the shown ones, `+1 tab ›` after. */
export function overflowText(hidden: number, side: 'before' | 'after'): string {
  const count = `+${plural(hidden, 'tab')}`;
  return side === 'before' ? `‹ ${count}` : `${count} ›`;
}

export interface TabWindow {
  /** Indexes of the titles shown, in order. */
  shown: number[];
  hiddenBefore: number;
  hiddenAfter: number;
}

/**
 * Which tabs fit in `width` columns: all when they do, else a run around the current one
 * (which is always shown), with room for `‹ +2 tabs` / `+1 tab ›` counts of the hidden ones.
 */
export function tabWindow(titles: readonly string[], current: number, width: number): TabWindow {
  const cost = (i: number): number => titles[i]!.length + (i === current ? 4 : 2);
  const all = titles.reduce((sum, _t, i) => sum + cost(i), 0);
  if (all <= width) return { shown: titles.map((_t, i) => i), hiddenBefore: 0, hiddenAfter: 0 };
  const marker = (hidden: number): number => (hidden > 0 ? overflowText(hidden, 'before').length : 0);
  let first = current;
  let last = current;
  let used = cost(current);
  const fits = (from: number, to: number, total: number): boolean => total + marker(from) + marker(titles.length - 1 - to) <= width;
  for (let grew = true; grew; ) {
    grew = false;
    // Prefer the tabs after the current one (where tab moves next), then before.
    if (last + 1 < titles.length && fits(first, last + 1, used + cost(last + 1))) {
      last += 1;
      used += cost(last);
      grew = true;
    }
    if (first > 0 && fits(first - 1, last, used + cost(first - 1))) {
      first -= 1;
      used += cost(first);
      grew = true;
    }
  }
  const shown: number[] = [];
  for (let i = first; i <= last; i++) shown.push(i);
  return { shown, hiddenBefore: first, hiddenAfter: titles.length - 1 - last };
}
