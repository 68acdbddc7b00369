import { useEffect, useState } from 'react';
import type { ActiveConfigFile, ConfigStatus, ReloadRecord, RouteView, RoutesView } from '@portico/daemon/control';
import '../config/config.css';
import { diagnosticLine, durationText, fileName, numberedLines, outcomeText, RESULT_LABEL } from '../config/reload-text';
import { newestEventOf } from '../infosessions/session-table';
import { useControlClient, useLive } from '../live/live-context';
import { StateBadge } from '../ui/state-badge';
import { TimeText } from '../ui/time-text';
import type { ViewDefinition } from './view-definition';

interface ConfigData {
  status: ConfigStatus;
  history: ReloadRecord[];
  active: ActiveConfigFile[];
  routes: RoutesView;
}

function ConfigView() {
  const client = useControlClient();
  const { events } = useLive();
  const reloaded = newestEventOf(events, ['config.reloaded']);
  const [data, setData] = useState<ConfigData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [fileIndex, setFileIndex] = useState(0);
  const [reloading, setReloading] = useState(false);
  const [result, setResult] = useState<ReloadRecord | null>(null);
  const [bump, setBump] = useState(0);

  useEffect(() => {
    let cancelled = false;
    Promise.all([client.config.status.query(), client.config.history.query(), client.config.active.query(), client.config.routes.query()]).then(
      ([status, history, active, routes]) => !cancelled && (setData({ status, history, active, routes }), setError(null)),
      (e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      cancelled = true;
    };
  }, [client, reloaded, bump]);

  const reload = () => {
    setReloading(true);
    client.config.reload.mutate().then(
      (record) => {
        setResult(record);
        setReloading(false);
        setBump((b) => b + 1);
      },
      (e: unknown) => {
        setError(e instanceof Error ? e.message : String(e));
        setReloading(false);
      },
    );
  };

  if (!data) return <div className="stack">{error ? <p className="error">{error}</p> : <p className="muted">Loading…</p>}</div>;
  const last = data.status.last;
  const file = data.active[Math.min(fileIndex, Math.max(0, data.active.length - 1))];
  return (
    <div className="stack">
      <section className="card" aria-labelledby="reload-heading">
        <div className="card-heading">
          <h2 id="reload-heading">Last reload</h2>
          <p className="muted summary">
            {data.status.files.map((f) => fileName(f.path)).join(', ')} · applied {data.status.appliedAt ? <TimeText iso={data.status.appliedAt} /> : 'never'}
          </p>
        </div>
        {error && <p className="error">{error}</p>}
        {last && <ReloadSummary record={last} />}
        <p>
          <button type="button" onClick={reload} disabled={reloading}>
            {reloading ? 'Reloading…' : 'Reload'}
          </button>
        </p>
        {result && (
          <div className="notice" role="status" data-testid="reload-result">
            Reload {result.result} in {durationText(result.durationMs)}: {outcomeText(result)}
          </div>
        )}
      </section>

      <RoutesCard routes={data.routes} />

      <section className="card" aria-labelledby="source-heading">
        <div className="card-heading">
          <h2 id="source-heading">Active configuration</h2>
          <p className="muted summary">secret values are shown as ***</p>
        </div>
        {data.active.length > 1 && (
          <div className="config-files" role="group" aria-label="Configuration files">
            {data.active.map((f, i) => (
              <button key={f.path} type="button" aria-pressed={f === file} onClick={() => setFileIndex(i)} title={f.path}>
                {fileName(f.path)}
              </button>
            ))}
          </div>
        )}
        {file && (
          <>
            <p className="muted">
              <code>{file.path}</code> · sha256 <code>{file.sha256.slice(0, 16)}</code> · {file.redacted} secret{file.redacted === 1 ? '' : 's'} hidden
            </p>
            {file.text === null ? (
              <p className="muted">{file.note}</p>
            ) : (
              <pre className="config-source" data-testid="config-source" tabIndex={0} aria-label={`Source of ${fileName(file.path)}`}>
                {numberedLines(file.text).map((l) => (
                  <span key={l.n} className="source-line">
                    <span className="line-number">{l.n}</span>
                    {l.text}
                  </span>
                ))}
              </pre>
            )}
          </>
        )}
      </section>

      <section className="card" aria-labelledby="history-heading">
        <div className="card-heading">
          <h2 id="history-heading">Reload history</h2>
          <p className="muted summary">last {data.history.length}, newest first</p>
        </div>
        <div className="table-scroll">
          <table className="table" data-testid="reload-history">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Trigger</th>
                <th scope="col">Result</th>
                <th scope="col">Duration</th>
                <th scope="col">Change</th>
              </tr>
            </thead>
            <tbody>
              {data.history.map((r) => (
                <tr key={r.id}>
                  <td>
                    <TimeText iso={r.startedAt} />
                  </td>
                  <td>{r.trigger}</td>
                  <td>
                    <StateBadge label={RESULT_LABEL[r.result]} />
                  </td>
                  <td>{durationText(r.durationMs)}</td>
                  <td>{outcomeText(r)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}

/** Each route with the access controls that guard it after inheritance and disable_access_control. */
function RoutesCard({ routes }: { routes: RoutesView }) {
  const open = routes.routes.filter((r) => r.guards.length === 0).length;
  return (
    <section className="card" aria-labelledby="routes-heading">
      <div className="card-heading">
        <h2 id="routes-heading">Routes and access control</h2>
        <p className="muted summary">
          {routes.routes.length} routes, {open} open
        </p>
      </div>
      {routes.accessControls.length > 0 && (
        <ul className="access-controls" data-testid="access-controls">
          {routes.accessControls.map((ac) => (
            <li key={ac.label}>
              <code>{ac.label}</code> ({ac.kind}): {ac.detail}
            </li>
          ))}
        </ul>
      )}
      <div className="table-scroll">
        <table className="table" data-testid="routes">
          <thead>
            <tr>
              <th scope="col">Route</th>
              <th scope="col">Kind</th>
              <th scope="col">Methods</th>
              <th scope="col">Guarded by</th>
              <th scope="col">Permission</th>
            </tr>
          </thead>
          <tbody>
            {routes.routes.map((r, i) => (
              <tr key={`${r.server ?? ''} ${r.kind} ${r.path} ${i}`}>
                <td>
                  <code>{r.path}</code>
                </td>
                <td>{r.kind}</td>
                <td>{r.methods.length >= 7 ? 'all' : r.methods.join(', ')}</td>
                <td className={r.guards.length === 0 ? 'tone-busy' : undefined}>{r.guards.length === 0 ? 'open' : r.guards.map((g) => `${g.label} (${g.kind})`).join(', ')}</td>
                <td>{permissionText(r.permission)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function permissionText(permission: RouteView['permission']): string {
  if (permission === null) return '—';
  if (typeof permission === 'string') return permission === '' ? '—' : permission;
  return Object.entries(permission)
    .map(([method, p]) => `${method}: ${p}`)
    .join(', ');
}

function ReloadSummary({ record }: { record: ReloadRecord }) {
  const problems = record.diagnostics.filter((d) => d.severity === 'error' || record.result === 'applied');
  return (
    <div data-testid="last-reload">
      <p>
        <StateBadge label={RESULT_LABEL[record.result]} /> {record.trigger} at <TimeText iso={record.startedAt} /> in {durationText(record.durationMs)}
        {record.result === 'applied' ? `: ${record.diff?.summary ?? 'unchanged'}` : ' — the previous configuration keeps serving'}
      </p>
      {record.result === 'failed' && <p className="error">{record.error}</p>}
      {problems.length > 0 && (
        <ul className="diagnostics">
          {problems.map((d, i) => (
            <li key={i} className={d.severity === 'error' ? 'tone-bad' : 'tone-busy'}>
              {diagnosticLine(d)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export const view: ViewDefinition = { path: '/config', title: 'Config', order: 20, Component: ConfigView };
