import type { ReactNode } from 'react';
import { Text } from 'ink';
import type { Label } from '../format/state-label.js';
import type { LiveState } from '../live/live-store.js';
import type { ViewDefinition } from '../views/view.js';
import { Tinted } from './theme.js';

/** How the link to the daemon is doing, as glyph + words. */
export function connectionLabel(live: Pick<LiveState, 'connection' | 'problem'>): Label {
  // A network reason helps ("connection refused"); a library's wording for anything else does not.
  const why = live.problem && live.problem.code !== 'failed' ? ` (${live.problem.reason})` : '';
  switch (live.connection) {
    case 'connecting':
      return { glyph: '◐', word: 'connecting…', tone: 'busy' };
    case 'connected':
      return { glyph: '●', word: 'connected', tone: 'good' };
    case 'disconnected':
      return { glyph: '✗', word: `disconnected — reconnecting…${why}`, tone: 'bad' };
    case 'refused':
      return { glyph: '✗', word: `token refused${why} — restart with the right token`, tone: 'bad' };
  }
}

export function Header({ live, url }: { live: LiveState; url: string }): ReactNode {
  const label = connectionLabel(live);
  return (
    <Text wrap="truncate-end">
      <Text bold> Portico </Text>
      <Tinted tone={label.tone} bold>{`${label.glyph} ${label.word}`}</Tinted>
      {`  ${url}  v${live.status.version} · ${live.status.mode}`}
    </Text>
  );
}

/** The views as tabs; the current one in brackets (and inverse), so it reads without colour. */
export function TabBar({ views, currentId }: { views: readonly ViewDefinition[]; currentId: string }): ReactNode {
  return (
    <Text wrap="truncate-end">
      {views.map((v) =>
        v.id === currentId ? (
          <Text key={v.id} bold inverse>{` [${v.title}] `}</Text>
        ) : (
          <Text key={v.id}>{`  ${v.title}  `}</Text>
        ),
      )}
    </Text>
  );
}
