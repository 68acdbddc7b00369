import type { AccessControlView, LoginView, RouteView, RoutesView } from '@portico/daemon/control';
import { formatClockOrDate, formatDateTime } from '../status/time-format';
import { StateBadge } from '../ui/state-badge';
import { loginState } from './login-state';

type LoginControlView = AccessControlView & { login: LoginView };

/**
 * Each route with the access controls that guard it after inheritance and
 * disable_access_control; above it the controls, login controls with their provider's state.
 * `nowMs` decides whether a time needs its date.
 */
export function RoutesCard({ routes, nowMs }: { routes: RoutesView; nowMs: number }) {
  const open = routes.routes.filter((r) => r.guards.length === 0).length;
  const logins = routes.accessControls.filter((ac): ac is LoginControlView => ac.login !== null);
  const others = routes.accessControls.filter((ac) => ac.login === null);
  return (
    <section className="card" aria-labelledby="routes-heading">
      <div className="card-heading">
        <h2 id="routes-heading">Routes and access control</h2>
        <p className="muted summary">
          {routes.routes.length} routes, {open} open
        </p>
      </div>
      {others.length > 0 && (
        <ul className="access-controls" data-testid="access-controls">
          {others.map((ac) => (
            <li key={ac.label}>
              <code>{ac.label}</code> ({ac.kind}): {ac.detail}
            </li>
          ))}
        </ul>
      )}
      {logins.length > 0 && (
        <div className="table-scroll">
          <table className="table login-controls" data-testid="login-controls" aria-label="Login controls">
            <thead>
              <tr>
                <th scope="col">Kind</th>
                <th scope="col">Label</th>
                <th scope="col">Provider</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {logins.map((ac) => (
                <LoginRow key={ac.label} control={ac} nowMs={nowMs} />
              ))}
            </tbody>
          </table>
        </div>
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
                <td title={r.kind === 'unrouted' ? 'the paths under this base path that no route takes: 404 once the guards pass' : undefined}>{r.kind}</td>
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

function LoginRow({ control, nowMs }: { control: LoginControlView; nowMs: number }) {
  const state = loginState(control.kind, control.login);
  return (
    <tr data-login={control.label}>
      <td>
        <span className="kind-badge">{control.kind}</span>
      </td>
      <td>
        <code>{control.label}</code>
      </td>
      <td className="login-provider">
        <code>{control.login.provider}</code>
        <span className="since">{control.detail}</span>
      </td>
      <td className="login-status">
        <StateBadge label={state.label} />
        {state.when && (
          <>
            {' '}
            {state.when.text}{' '}
            <time dateTime={state.when.iso} title={formatDateTime(state.when.iso)}>
              {formatClockOrDate(state.when.iso, nowMs)}
            </time>
          </>
        )}
        {state.notes.map((note) => (
          <span key={note} className="login-note">
            {' '}
            · {note}
          </span>
        ))}
        {state.error !== null && <span className="login-error">{state.error}</span>}
      </td>
    </tr>
  );
}

function permissionText(permission: RouteView['permission']): string {
  if (permission === null) return '—';
  if (typeof permission === 'string') return permission === '' ? '—' : permission;
  return Object.entries(permission)
    .map(([method, p]) => `${method}: ${p}`)
    .join(', ');
}
