import { LiveProvider } from './live/live-context';
import { useLiveDaemon } from './live/use-live-daemon';
import { Shell } from './shell/shell';

/** A logged-in tab: one live connection to the daemon shared by every view. */
export function Session({ token, onLogout, onRefused }: { token: string; onLogout(): void; onRefused(): void }) {
  const { live, client } = useLiveDaemon(token, onRefused);
  if (!client) return null;
  return (
    <LiveProvider value={{ live, client }}>
      <Shell onLogout={onLogout} />
    </LiveProvider>
  );
}
