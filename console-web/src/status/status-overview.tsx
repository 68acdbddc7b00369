import type { LiveState } from '../live/live-state';
import { TimeText } from '../ui/time-text';
import { UptimeText } from './uptime-text';

/** Daemon identity and store, as a description list (label → value). */
export function StatusOverview({ live }: { live: LiveState }) {
  const { status } = live;
  if (!status) return null;
  return (
    <div className="cards">
      <section className="card" aria-labelledby="daemon-heading">
        <h2 id="daemon-heading">Daemon</h2>
        <dl className="facts">
          <dt>Version</dt>
          <dd data-testid="version">{status.version}</dd>
          <dt>Mode</dt>
          <dd data-testid="mode">{status.mode}</dd>
          <dt>PID</dt>
          <dd data-testid="pid">{status.pid}</dd>
          <dt>Uptime</dt>
          <dd>
            <UptimeText live={live} />
          </dd>
          <dt>Started</dt>
          <dd>
            <TimeText iso={status.startedAt} />
          </dd>
        </dl>
      </section>
      <section className="card" aria-labelledby="store-heading">
        <h2 id="store-heading">Store</h2>
        <dl className="facts">
          <dt>Kind</dt>
          <dd>{status.store.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}</dd>
          <dt>Location</dt>
          <dd className="wrap-anywhere">{status.store.location}</dd>
          <dt>Schema version</dt>
          <dd>{status.store.schemaVersion}</dd>
        </dl>
      </section>
    </div>
  );
}
