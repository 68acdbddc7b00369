import type { ReloadRecord } from '@portico/daemon/control';
import { rejectedSaveProblem } from '@portico/daemon/control/diagnostics';
import type { LiveState } from '../live/live-state';
import { staleSince } from '../live/live-state';
import { AppLink } from '../router/app-link';
import { formatClockOrDate } from '../status/time-format';

/** The config view, where a rejected save is shown in full. */
const CONFIG_PATH = '/config';

/**
 * What every view shows under the top bar: that the page is stale while the link is down, and a
 * config save the daemon rejected, until a reload applies (with the way to the Config view).
 */
export function LiveNotices({ live, path }: { live: LiveState; path: string }) {
  const since = staleSince(live);
  const rejected = live.rejectedReload;
  if (since === null && !rejected) return null;
  return (
    <div className="live-notices">
      {since !== null && <StaleNotice since={since} />}
      {rejected && <RejectedSaveNotice record={rejected} onConfig={path === CONFIG_PATH || path.startsWith(`${CONFIG_PATH}/`)} />}
    </div>
  );
}

function StaleNotice({ since }: { since: number }) {
  const iso = new Date(since).toISOString();
  return (
    <p className="live-notice live-notice-stale" role="status" data-testid="stale-notice">
      <strong>Disconnected from the daemon — reconnecting by itself.</strong> What you see is stale — last update{' '}
      <time dateTime={iso}>{formatClockOrDate(iso, Date.now())}</time>; actions are off until the daemon is back.
    </p>
  );
}

function RejectedSaveNotice({ record, onConfig }: { record: ReloadRecord; onConfig: boolean }) {
  const what = record.result === 'failed' ? 'Config reload failed' : 'Config save rejected';
  return (
    <p className="live-notice live-notice-bad" role="status" data-testid="rejected-save">
      <span className="live-notice-glyph" aria-hidden="true">
        ✗
      </span>
      <strong>{what}:</strong> <code className="wrap-anywhere">{rejectedSaveProblem(record)}</code> ·{' '}
      <time dateTime={record.startedAt}>{formatClockOrDate(record.startedAt, Date.now())}</time>. The previous configuration keeps serving.
      {!onConfig && (
        <>
          {' '}
          <AppLink to={CONFIG_PATH}>Open Config</AppLink>
        </>
      )}
    </p>
  );
}
