import { useState } from 'react';
import { failureText } from '../api/failure-text';
import { useControlQuery } from '../api/use-control-query';
import type { ActiveConfigFile, ConfigStatus, ReloadRecord, RoutesView } from '@portico/daemon/control';
import '../config/config.css';
import { DiagnosticsList } from '../config/diagnostics-list';
import { plural, reloadLabel, tookText } from '@portico/daemon/display';
import { fileName, numberedLines, outcomeText } from '../config/reload-text';
import { RoutesCard } from '../config/routes-card';
import { ActionButton } from '../live/action-button';
import { useControlClient } from '../live/live-context';
import { useNow } from '../live/use-now';
import { StateBadge } from '../ui/state-badge';
import { TimeText } from '../ui/time-text';
import type { ViewDefinition } from './view-definition';

interface ConfigData {
  status: ConfigStatus;
  history: ReloadRecord[];
  active: ActiveConfigFile[];
  routes: RoutesView;
}

/** A login provider's state changes without a config event (a failed refresh); re-read this often while the page is open. */
const REFRESH_MS = 5_000;

function ConfigView() {
  const client = useControlClient();
  const read = useControlQuery(
    (c) =>
      Promise.all([c.config.status.query(), c.config.history.query(), c.config.active.query(), c.config.routes.query()]).then(([status, history, active, routes]): ConfigData => ({ status, history, active, routes })),
    [],
    { pollMs: REFRESH_MS, refetchOn: ['config.reloaded'] },
  );
  const data = read.data;
  const [actionError, setError] = useState<string | null>(null);
  const error = actionError ?? read.error;
  const [fileIndex, setFileIndex] = useState(0);
  const [reloading, setReloading] = useState(false);
  const [result, setResult] = useState<ReloadRecord | null>(null);
  const now = useNow(REFRESH_MS);

  const reload = () => {
    setReloading(true);
    client.config.reload.mutate().then(
      (record) => {
        setResult(record);
        setReloading(false);
        setError(null);
        read.refresh();
      },
      (e: unknown) => {
        setError(failureText(e));
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
          <ActionButton type="button" onClick={reload} disabled={reloading}>
            {reloading ? 'Reloading…' : 'Reload'}
          </ActionButton>
        </p>
        {result && (
          <div className="notice" role="status" data-testid="reload-result">
            Reload {result.result} in {tookText(result.durationMs)}: {outcomeText(result)}
          </div>
        )}
      </section>

      <RoutesCard routes={data.routes} nowMs={now} />

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
              <code>{file.path}</code> · sha256 <code>{file.sha256.slice(0, 16)}</code> · {plural(file.redacted, 'secret')} hidden
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
                    <StateBadge label={reloadLabel(r.result)} />
                  </td>
                  <td>{tookText(r.durationMs)}</td>
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

function ReloadSummary({ record }: { record: ReloadRecord }) {
  const problems = record.diagnostics.filter((d) => d.severity === 'error' || record.result === 'applied');
  return (
    <div data-testid="last-reload">
      <p>
        <StateBadge label={reloadLabel(record.result)} /> {record.trigger} at <TimeText iso={record.startedAt} /> in {tookText(record.durationMs)}
        {record.result === 'applied' ? `: ${record.diff?.summary ?? 'unchanged'}` : ' — the previous configuration keeps serving'}
      </p>
      {record.result === 'failed' && <p className="error">{record.error}</p>}
      <DiagnosticsList diagnostics={problems} />
    </div>
  );
}

export const view: ViewDefinition = { path: '/config', title: 'Config', order: 20, Component: ConfigView };
