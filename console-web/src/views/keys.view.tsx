import { useEffect, useState, type FormEvent } from 'react';
import type { ApiKeySummary, CreatedApiKey } from '@portico/daemon/control';
import { keyActions, newestEventOf, parseLimit, usageText } from '../infosessions/session-table';
import { useControlClient, useLive } from '../live/live-context';
import { TimeText } from '../ui/time-text';
import '../styles/infosessions.css';
import type { ViewDefinition } from './view-definition';

const STATE_TONE = { active: 'good', banned: 'bad', revoked: 'idle' } as const;
/** Usage moves with every call; re-read this often while the page is open. */
const REFRESH_MS = 5_000;

function KeysView() {
  const client = useControlClient();
  const { events } = useLive();
  const changed = newestEventOf(events, ['infosessions.keys']);
  const [keys, setKeys] = useState<ApiKeySummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    let cancelled = false;
    client.keys.list.query().then(
      (list) => !cancelled && (setKeys(list), setError(null)),
      (e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      cancelled = true;
    };
  }, [client, changed, tick]);

  const create = (e: FormEvent) => {
    e.preventDefault();
    const parsed = parseLimit(limit);
    if (!parsed.ok) return setError(parsed.message);
    client.keys.create.mutate({ name: name.trim(), monthlyLimit: parsed.value }).then(
      (result) => {
        setCreated(result);
        setName('');
        setLimit('');
        setTick((t) => t + 1);
      },
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  };
  const act = (key: ApiKeySummary, action: 'ban' | 'unban' | 'revoke') => {
    if (action === 'revoke' && !window.confirm(`Revoke ${key.name} (${key.id}) for good? Calls with it will get 401.`)) return;
    client.keys[action].mutate({ id: key.id }).then(
      () => setTick((t) => t + 1),
      (err: unknown) => setError(err instanceof Error ? err.message : String(err)),
    );
  };

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
          <button type="submit" disabled={name.trim() === ''}>
            Create
          </button>
        </form>
        {created && (
          <div className="notice new-key" role="status" data-testid="new-key">
            <p>
              Key for <strong>{created.key.name}</strong>. Copy it now: it is never shown again.
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
          <h2 id="keys-heading">API keys</h2>
          <p className="muted summary">infosessions service · calls this month (UTC)</p>
        </div>
        {error && <p className="error">{error}</p>}
        {keys && keys.length === 0 && <p className="muted">No API keys yet.</p>}
        {keys && keys.length > 0 && (
          <div className="table-scroll">
            <table className="table">
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
                {keys.map((k) => (
                  <tr key={k.id} data-testid={`key-${k.id}`}>
                    <th scope="row">
                      {k.name} <span className="muted">{k.id}</span>
                    </th>
                    <td>
                      <code>{k.masked}</code>
                    </td>
                    <td className={`tone-${STATE_TONE[k.state]}`}>{k.state}</td>
                    <td>{usageText(k)}</td>
                    <td>{k.lastUsedAt ? <TimeText iso={k.lastUsedAt} /> : <span className="muted">never</span>}</td>
                    <td className="actions">
                      {keyActions(k.state).map((a) => (
                        <button key={a} type="button" onClick={() => act(k, a)}>
                          {a}
                        </button>
                      ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

export const view: ViewDefinition = { path: '/keys', title: 'API keys', order: 45, Component: KeysView };
