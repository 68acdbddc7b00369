import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { ApiKeySummary } from '@portico/daemon/control';
import { fit, truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { useNow } from '../shell/use-now.js';
import { lastEventOf, problemText, useControlQuery } from './use-control-query.js';
import { usePrompt } from './use-prompt.js';
import type { ViewDefinition, ViewProps } from './view.js';

const ID_WIDTH = 14;
const KEY_WIDTH = 7;
const STATE_WIDTH = 9;
const COUNT_WIDTH = 10;
const USED_WIDTH = 16;
/** Usage changes with every call; re-read this often while on screen. */
const REFRESH_MS = 5_000;

type Banner = { tone: 'good' | 'bad' | 'plain'; text: string } | null;

const STATE_TONE = { active: 'good', banned: 'bad', revoked: 'idle' } as const;

export function lastUsedText(iso: string | null): string {
  return iso ? iso.slice(0, 16).replace('T', ' ') : 'never';
}

function KeysView({ live, source, width, height, visible, keyState }: ViewProps): ReactNode {
  const [selected, setSelected] = useState(0);
  const [banner, setBanner] = useState<Banner>(null);
  const [confirmRevoke, setConfirmRevoke] = useState<string | null>(null);
  const [bump, setBump] = useState(0);
  const tick = Math.floor(useNow(REFRESH_MS) / REFRESH_MS);
  const api = source.api;
  const changed = lastEventOf(live.events, ['infosessions.keys']);
  const query = useControlQuery<ApiKeySummary[]>(visible, api ? () => api.keys.list.query() : null, [changed, bump, tick, live.status.bootId]);
  const keys = query.data ?? [];
  const index = Math.min(selected, Math.max(0, keys.length - 1));
  const current = keys[index];

  const act = (what: string, run: () => Promise<{ id: string; name: string; state: string }>): void => {
    run().then(
      (k) => {
        setBanner({ tone: 'plain', text: `${k.id} (${k.name}) is ${k.state}` });
        setBump((b) => b + 1);
      },
      (error: unknown) => setBanner({ tone: 'bad', text: `${what} failed: ${problemText(error)}` }),
    );
  };
  const prompt = usePrompt('keys', keyState, (name) => {
    if (!api || name.trim() === '') return;
    api.keys.create.mutate({ name: name.trim() }).then(
      (created) => {
        setBanner({ tone: 'good', text: `new key for ${created.key.name}, shown only now: ${created.secret}` });
        setBump((b) => b + 1);
      },
      (error: unknown) => setBanner({ tone: 'bad', text: `create failed: ${problemText(error)}` }),
    );
  });

  useKeyScope(
    'keys',
    'API keys',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'previous key', run: () => setSelected(Math.max(0, index - 1)) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next key', hint: 'move', run: () => setSelected(Math.min(keys.length - 1, index + 1)) },
      { keys: ['n'], description: 'create a key (type its name, Enter); the key is shown once', hint: 'new', run: () => prompt.open() },
      {
        keys: ['b'],
        description: 'ban the selected key (403), or unban it',
        hint: 'ban',
        run: () => current && api && act(current.state === 'banned' ? 'unban' : 'ban', () => (current.state === 'banned' ? api.keys.unban.mutate({ id: current.id }) : api.keys.ban.mutate({ id: current.id }))),
      },
      { keys: ['x'], description: 'revoke the selected key for good (asks y to confirm)', hint: 'revoke', run: () => current && current.state !== 'revoked' && setConfirmRevoke(current.id) },
      {
        keys: ['y'],
        description: 'confirm the revoke',
        run: () => {
          const id = confirmRevoke;
          setConfirmRevoke(null);
          if (id && api) act('revoke', () => api.keys.revoke.mutate({ id }));
        },
      },
      { keys: ['escape'], description: 'dismiss the message or the question', run: () => (setBanner(null), setConfirmRevoke(null)) },
    ],
    keyState,
  );

  const nameWidth = Math.max(6, width - ID_WIDTH - KEY_WIDTH - STATE_WIDTH - COUNT_WIDTH - USED_WIDTH - 13);
  const listHeight = Math.max(1, height - 5);
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), keys.length - listHeight));
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> API KEYS</Text>
        <Text>{`  ${query.data ? keys.length : query.loading ? 'loading…' : ''} · infosessions service · calls this month (UTC)`}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <Line width={width} text="" />}
      <Line width={width} text={` ${fit('ID', ID_WIDTH)}  ${fit('NAME', nameWidth)}  ${fit('KEY', KEY_WIDTH)}  ${fit('STATE', STATE_WIDTH)}  ${fit('THIS MONTH', COUNT_WIDTH)}  LAST USED`} dim />
      <Box flexDirection="column" height={listHeight}>
        {keys.slice(top, top + listHeight).map((k, i) => (
          <Text key={k.id} wrap="truncate-end" inverse={top + i === index}>
            {` ${fit(k.id, ID_WIDTH)}  ${fit(k.name, nameWidth)}  ${fit(k.masked, KEY_WIDTH)}  `}
            <Tinted tone={STATE_TONE[k.state]}>{fit(k.state, STATE_WIDTH)}</Tinted>
            {`  ${fit(`${k.requestsThisMonth}${k.monthlyLimit !== null ? `/${k.monthlyLimit}` : ''}`, COUNT_WIDTH)}  ${fit(lastUsedText(k.lastUsedAt), USED_WIDTH)}`}
          </Text>
        ))}
        {query.data && keys.length === 0 ? <Line width={width} text=" No API keys yet. Press n to create one." dim /> : null}
      </Box>
      {prompt.text !== null ? (
        <Line width={width} text={` name of the new key: ${prompt.text}█`} />
      ) : confirmRevoke ? (
        <Line width={width} text={` revoke ${confirmRevoke} for good? y revokes, Esc keeps it`} bold />
      ) : banner ? (
        // The new key must be copyable whole: it wraps rather than being cut.
        <Text wrap="wrap"><Tinted tone={banner.tone}>{` ${banner.text}`}</Tinted></Text>
      ) : (
        <Line width={width} text="" />
      )}
    </Box>
  );
}

export const keysView: ViewDefinition = {
  id: 'keys',
  title: 'keys',
  aliases: ['apikeys', 'api-keys'],
  description: 'API keys of the infosessions service: create (shown once), ban, revoke, usage',
  Component: KeysView,
};
