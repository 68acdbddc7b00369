import { useState, type ReactNode } from 'react';
import { Box, Text } from 'ink';
import type { ApiKeySummary } from '@portico/daemon/control';
import { plural } from '@portico/daemon/display';
import { parseMonthlyLimit } from '@portico/daemon/control/monthly-limit';
import { cellsOf, layoutColumns, layoutLine, type ColumnSpec } from '../format/columns.js';
import { formatClockOrDate } from '../format/duration.js';
import { truncate } from '../format/fit.js';
import { useKeyScope } from '../keys/use-keys.js';
import { Line } from '../shell/line.js';
import { Tinted } from '../shell/theme.js';
import { useNow } from '../shell/use-now.js';
import { Cells } from './table-cells.js';
import { ConfirmLine, useConfirm } from './use-confirm.js';
import { lastEventOf, problemText, useControlQuery } from './use-control-query.js';
import { usePrompt } from './use-prompt.js';
import type { ViewDefinition, ViewProps } from './view.js';

/** Usage changes with every call; re-read this often while on screen. */
const REFRESH_MS = 5_000;
const HEADERS = ['ID', 'NAME', 'KEY', 'STATE', 'THIS MONTH', 'LAST USED'];
const STATE_COLUMN = 3;

type Banner = { tone: 'good' | 'bad' | 'plain'; text: string } | null;

const STATE_TONE = { active: 'good', banned: 'bad', revoked: 'idle' } as const;

/** Local time, with the date when not today; `never` for a key not used yet. */
export function lastUsedText(iso: string | null, nowMs: number): string {
  return iso ? formatClockOrDate(iso, nowMs) : 'never';
}

function keyCells(k: ApiKeySummary, nowMs: number): string[] {
  return [k.id, k.name, k.masked, k.state, `${k.requestsThisMonth}${k.monthlyLimit !== null ? `/${k.monthlyLimit}` : ''}`, lastUsedText(k.lastUsedAt, nowMs)];
}

/** The name takes the spare width; narrow, the last use, the masked key and then the id go before the state. */
function keyColumns(rows: readonly string[][]): ColumnSpec[] {
  return [
    { header: HEADERS[0]!, cells: cellsOf(rows, 0), keep: 4 },
    { header: HEADERS[1]!, cells: cellsOf(rows, 1), grow: true, keep: 8 },
    { header: HEADERS[2]!, cells: cellsOf(rows, 2), keep: 2 },
    { header: HEADERS[3]!, cells: [...cellsOf(rows, 3), 'revoked'], keep: 9 },
    { header: HEADERS[4]!, cells: cellsOf(rows, 4), keep: 5 },
    { header: HEADERS[5]!, cells: cellsOf(rows, 5), keep: 1 },
  ];
}

function KeysView({ live, source, nowMs, width, height, visible, keyState }: ViewProps): ReactNode {
  const [selected, setSelected] = useState(0);
  const [banner, setBanner] = useState<Banner>(null);
  // The name typed in the first prompt while the second asks for the monthly limit.
  const [newName, setNewName] = useState<string | null>(null);
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
  const create = (name: string, monthlyLimit: number | null): void => {
    if (!api) return;
    api.keys.create.mutate({ name, monthlyLimit }).then(
      (created) => {
        const limit = created.key.monthlyLimit === null ? 'no monthly limit' : `limit ${plural(created.key.monthlyLimit, 'call')} a month`;
        setBanner({ tone: 'good', text: `new key for ${created.key.name} (${limit}), shown only now: ${created.secret}` });
        setBump((b) => b + 1);
      },
      (error: unknown) => setBanner({ tone: 'bad', text: `create failed: ${problemText(error)}` }),
    );
  };
  const cancelled = (): void => {
    setNewName(null);
    setBanner({ tone: 'plain', text: 'no key created' });
  };
  // Second step: the monthly limit; a bad one is said and asked again with the text kept.
  const limitPrompt = usePrompt(
    'keys-limit',
    keyState,
    (text) => {
      const parsed = parseMonthlyLimit(text);
      if (!parsed.ok) {
        setBanner({ tone: 'bad', text: parsed.message });
        limitPrompt.open(text);
        return;
      }
      const name = newName;
      setNewName(null);
      setBanner(null);
      if (name) create(name, parsed.value);
    },
    cancelled,
  );
  // First step: the name.
  const namePrompt = usePrompt(
    'keys',
    keyState,
    (text) => {
      const name = text.trim();
      if (name === '') {
        setBanner({ tone: 'bad', text: 'no key created: a key needs a name (n to try again)' });
        return;
      }
      setBanner(null);
      setNewName(name);
      limitPrompt.open();
    },
    cancelled,
  );
  const revoke = useConfirm<ApiKeySummary>('keys', keyState, (k) => api && act('revoke', () => api.keys.revoke.mutate({ id: k.id })));

  useKeyScope(
    'keys',
    'API keys',
    [
      { keys: ['up', 'k'], label: '↑/k', description: 'previous key', run: () => setSelected(Math.max(0, index - 1)) },
      { keys: ['down', 'j'], label: '↓/j', description: 'next key', hint: 'move', run: () => setSelected(Math.min(keys.length - 1, index + 1)) },
      { keys: ['n'], description: 'create a key: type its name, Enter, then its monthly limit (empty for none), Enter; the key is shown once', hint: 'new', daemonAction: true, run: () => namePrompt.open() },
      {
        keys: ['b'],
        description: 'ban the selected key (403), or unban it',
        hint: 'ban',
        daemonAction: true,
        run: () => current && api && act(current.state === 'banned' ? 'unban' : 'ban', () => (current.state === 'banned' ? api.keys.unban.mutate({ id: current.id }) : api.keys.ban.mutate({ id: current.id }))),
      },
      { keys: ['x'], description: 'revoke the selected key for good: calls with it get 401 (asks y to confirm)', hint: 'revoke', daemonAction: true, run: () => current && current.state !== 'revoked' && revoke.ask(current) },
      { keys: ['escape'], description: 'dismiss the message', run: () => setBanner(null) },
    ],
    keyState,
  );

  const rows = keys.map((k) => keyCells(k, nowMs));
  const layout = layoutColumns(keyColumns(rows), width);
  // The limit prompt keeps the problem with the typed limit on screen above it.
  const footer = limitPrompt.text !== null && banner ? 2 : 1;
  const listHeight = Math.max(1, height - 4 - footer);
  const top = Math.max(0, Math.min(index - Math.floor(listHeight / 2), keys.length - listHeight));
  return (
    <Box flexDirection="column" width={width} height={height}>
      <Text wrap="truncate-end">
        <Text bold> API KEYS</Text>
        <Text>{`  ${query.data ? keys.length : query.loading ? 'loading…' : ''} · infosessions service · calls this month (UTC)`}</Text>
      </Text>
      {query.error ? <Text wrap="truncate-end"><Tinted tone="bad">{truncate(` ✗ ${query.error}`, width)}</Tinted></Text> : <Line width={width} text="" />}
      <Line width={width} text={layoutLine(layout, HEADERS)} dim />
      <Box flexDirection="column" height={listHeight}>
        {keys.slice(top, top + listHeight).map((k, i) => (
          <Text key={k.id} wrap="truncate-end" inverse={top + i === index}>
            <Cells layout={layout} cells={rows[top + i]!} tinted={[STATE_COLUMN]} tone={STATE_TONE[k.state]} />
          </Text>
        ))}
        {query.data && keys.length === 0 ? <Line width={width} text=" No API keys yet. Press n to create one." dim /> : null}
      </Box>
      {namePrompt.text !== null ? (
        <Line width={width} text={` name of the new key: ${namePrompt.text}█`} />
      ) : limitPrompt.text !== null ? (
        <>
          {banner ? <Text wrap="truncate-end"><Tinted tone={banner.tone}>{truncate(` ${banner.text}`, width)}</Tinted></Text> : null}
          <Line width={width} text={` monthly limit for ${newName ?? ''} (calls a month; empty = no limit): ${limitPrompt.text}█`} />
        </>
      ) : revoke.asking ? (
        <ConfirmLine question={`revoke ${revoke.asking.id} (${revoke.asking.name}) for good`} yes="revokes it" no="keeps it" width={width} />
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
