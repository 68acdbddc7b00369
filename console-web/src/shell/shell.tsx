import { useEffect, useRef } from 'react';
import { useLive } from '../live/live-context';
import { resolveView } from '../router/resolve-view';
import { useLocationPath } from '../router/use-location';
import { AppLink } from '../router/app-link';
import { views } from '../views/view-registry';
import { ConnectionIndicator } from './connection-indicator';
import { LiveNotices } from './live-notices';
import { NavBar } from './nav-bar';

/** Frame around every view: brand, navigation, connection state, logout; the view below. */
export function Shell({ onLogout }: { onLogout(): void }) {
  const live = useLive();
  const path = useLocationPath();
  const view = resolveView(path, views);
  const heading = useRef<HTMLHeadingElement>(null);
  const title = view?.title ?? 'Not found';

  useEffect(() => {
    document.title = `${title} · Portico`;
    // After login and on every navigation, keyboard and screen reader users land on the page heading.
    heading.current?.focus();
  }, [path, title]);

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <div className="topbar-inner">
          <AppLink to="/" className="brand">
            Portico
          </AppLink>
          <NavBar views={views} current={view} />
          <div className="topbar-end">
            <ConnectionIndicator link={live.link} />
            <button type="button" className="button-quiet" onClick={onLogout}>
              Log out
            </button>
          </div>
        </div>
      </header>
      <LiveNotices live={live} path={path} />
      <main id="main" className="page" tabIndex={-1}>
        <h1 ref={heading} tabIndex={-1}>
          {title}
        </h1>
        {view ? (
          <view.Component />
        ) : (
          <p>
            There is no dashboard view at <code>{path}</code>. <AppLink to="/">Go to the status page</AppLink>.
          </p>
        )}
      </main>
    </>
  );
}
