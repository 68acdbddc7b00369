import { useState, type FormEvent, type ReactNode } from 'react';
import type { ApiKeySummary, CreatedApiKey } from '@portico/daemon/control';
import { parseMonthlyLimit } from '@portico/daemon/control/monthly-limit';
import { failureText } from '../api/failure-text';
import { useControlQuery } from '../api/use-control-query';
import { callsText, filterKeys, keyActions, usageText } from '../infosessions/session-table';
import { ActionButton } from '../live/action-button';
import { useControlClient } from '../live/live-context';
import { useUrlState } from '../router/use-url-state';
import { ConfirmQuestion } from '../ui/confirm-question';
import { DetailCard } from '../ui/detail-card';
import { ListFilter } from '../ui/list-filter';
import { TimeText } from '../ui/time-text';
import '../styles/infosessions.css';
import type { ViewDefinition } from './view-definition';

const STATE_TONE = { active: 'good', banned: 'bad', revoked: 'idle' } as const;
const STATES = ['active', 'banned', 'revoked'] as const;
/** Usage moves with every call; re-read this often while the page is open. */
const REFRESH_MS = 5_000;
/** Kept in the address: `/keys?q=mobile&state=banned&key=key_0a1b2c3d4e`. */
const URL_STATE = { q: '', state: '', key: '' };

function KeysView() {
  const client = useControlClient();
  const list = useControlQuery((c) => c.keys.list.query(), [], { pollMs: REFRESH_MS, refetchOn: ['infosessions.keys'] });
  const keys = list.data;
  const [actionError, setError] = useState<string | null>(null);
  const error = actionError ?? list.error;
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [revoking, setRevoking] = useState<ApiKeySummary | null>(null);
  const [url, setUrl] = useUrlState(URL_STATE);

  const create = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseMonthlyLimit(limit);
    if (!parsed.ok) return setError(parsed.message);
    client.keys.create.mutate({ name: name.trim(), monthlyLimit: parsed.value }).then(
      (result) => {
        setCreated(result);
        setName('');
        setLimit('');
        setError(null);
        list.refresh();
      },
      (err: unknown) => setError(failureText(err)),
    );
  };
  const act = (key: ApiKeySummary, action: 'ban' | 'unban' | 'revoke', confirmed = false) => {
    // Revoking cannot be undone: it asks in the page first.
    if (action === 'revoke' && !confirmed) return setRevoking(key);
    setRevoking(null);
    client.keys[action].mutate({ id: key.id }).then(
      () => (setError(null), list.refresh()),
      (err: unknown) => setError(failureText(err)),
    );
  };
  const actions = (k: ApiKeySummary) =>
    keyActions(k.state).map((a) => (
      <ActionButton key={a} type="button" onClick={() => act(k, a)} aria-label={`${a} ${k.name}`}>
        {a}
      </ActionButton>
    ));

  const shown = keys ? filterKeys(keys, url.q, url.state) : null;
  const selected = url.key && keys ? (keys.find((k) => k.id === url.key) ?? null) : null;
  return (
    <div className="stack">
      <section className="card" aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">New API key</h2>
        <form className="filters" onSubmit={create}>
          <label>
            Name <input required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} placeholder="who uses it" />
          </label>
          <label>
            Monthly limit <input inputMode="numeric" value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="none" size={8} />
          </label>
          <ActionButton type="submit" disabled={name.trim() === ''}>
            Create
          </ActionButton>
        </form>
        {created && (
          <div className="notice new-key" role="status" data-testid="new-key">
            <p>
              Key for <strong>{created.key.name}</strong>
              {created.key.monthlyLimit !== null ? `, ${callsText(created.key.monthlyLimit)} a month` : ''}. Copy it now: it is never shown again.
            </p>
            <code className="secret">{created.secret}</code>{' '}
            <button type="button" onClick={() => void navigator.clipboard?.writeText(created.secret)}>
              Copy
            </button>{' '}
            <button type="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        )}
      </section>
      <section className="card" aria-labelledby="keys-heading">
        <div className="card-heading">
          <h2 id="keys-heading">Issued keys</h2>
          <p className="muted summary" aria-live="polite">
            {shown && keys ? (shown.length === keys.length ? `${keys.length}` : `${shown.length} of ${keys.length}`) : ''} · infosessions service · calls this month (UTC)
          </p>
        </div>
        <ListFilter search={url.q} searchHint="name or id" onSearch={(q) => setUrl({ q }, 'typing')} choiceLabel="State" choice={url.state} choices={STATES} onChoice={(state) => setUrl({ state })} onClear={() => setUrl({ q: '', state: '' })} />
        {error && <p className="error">{error}</p>}
        {revoking && (
          <ConfirmQuestion confirm="Revoke" keep="Keep it" onConfirm={() => act(revoking, 'revoke', true)} onKeep={() => setRevoking(null)} testId="revoke-question">
            Revoke <strong>{revoking.name}</strong> ({revoking.id}) for good? Calls with it get 401; this cannot be undone.
          </ConfirmQuestion>
        )}
        {keys && keys.length === 0 && <p className="muted">No API keys yet.</p>}
        {keys && keys.length > 0 && shown?.length === 0 && <p className="muted">No key matches these filters.</p>}
        <div className="sessions-layout">
          {shown && shown.length > 0 && (
            <div className="table-scroll">
              <table className="table sessions-table">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Key</th>
                    <th scope="col">State</th>
                    <th scope="col">This month</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((k) => (
                    <tr key={k.id} data-testid={`key-${k.id}`} className={selected?.id === k.id ? 'selected' : undefined} aria-selected={selected?.id === k.id}>
                      <th scope="row">
                        <button type="button" className="link-button" onClick={() => setUrl({ key: selected?.id === k.id ? '' : k.id })} aria-expanded={selected?.id === k.id}>
                          {k.name}
                        </button>{' '}
                        <span className="muted">{k.id}</span>
                      </th>
                      <td>
                        <code>{k.masked}</code>
                      </td>
                      <td className={`tone-${STATE_TONE[k.state]}`}>{k.state}</td>
                      <td className="nowrap">{usageText(k)}</td>
                      <td>{k.lastUsedAt ? <TimeText iso={k.lastUsedAt} /> : <span className="muted">never</span>}</td>
                      <td>
                        {/* A flex row inside the cell: a flex <td> stops being a table cell (no border, no row highlight). */}
                        <div className="actions">{actions(k)}</div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {selected && <KeyDetail k={selected} onClose={() => setUrl({ key: '' })} actions={actions(selected)} />}
        </div>
        {url.key && keys && !selected && <p className="muted">There is no key {url.key}; it may have been created on another daemon or the link is wrong.</p>}
      </section>
    </div>
  );
}

function KeyDetail({ k, onClose, actions }: { k: ApiKeySummary; onClose: () => void; actions: ReactNode }) {
  return (
    <DetailCard title={k.name} onClose={onClose} testId="key-detail" className="session-detail">
      <dl className="facts">
        <dt>Id</dt>
        <dd>
          <code>{k.id}</code>
        </dd>
        <dt>Key</dt>
        <dd>
          <code>{k.masked}</code> <span className="muted">(shown whole only when created)</span>
        </dd>
        <dt>State</dt>
        <dd className={`tone-${STATE_TONE[k.state]}`}>
          {k.state}
          {k.stateChangedAt && (
            <span className="muted">
              {' '}
              since <TimeText iso={k.stateChangedAt} />
            </span>
          )}
        </dd>
        <dt>Monthly limit</dt>
        <dd>{k.monthlyLimit === null ? 'none' : callsText(k.monthlyLimit)}</dd>
        <dt>This month</dt>
        <dd>{callsText(k.requestsThisMonth)}</dd>
        <dt>Created</dt>
        <dd>
          <TimeText iso={k.createdAt} />
        </dd>
        <dt>Last used</dt>
        <dd>{k.lastUsedAt ? <TimeText iso={k.lastUsedAt} /> : 'never'}</dd>
      </dl>
      <div className="actions detail-actions">{actions}</div>
    </DetailCard>
  );
}

export const view: ViewDefinition = { path: '/keys', title: 'API keys', order: 45, Component: KeysView };
