import type { AccessControlKind, LoginView } from '@portico/daemon/control';
import type { Label } from '../status/labels';

/** A login control's provider state as the Routes and access control card shows it. */
export interface LoginState {
  label: Label;
  /** `at` (the failure) / `configuration fetched at`, with its ISO time. */
  when: { text: string; iso: string } | null;
  /** Said after the time: `using cached configuration`, `configuration not fetched yet`. */
  notes: string[];
  /** The provider's last failure, shown in full under the state. */
  error: string | null;
}

const CACHED = 'using cached configuration';

export function loginState(kind: AccessControlKind, login: LoginView): LoginState {
  const cached = login.usingCachedConfiguration ? [CACHED] : [];
  if (login.lastError !== null) {
    return { label: { glyph: '✗', word: 'failed', tone: 'bad' }, when: login.lastErrorAt ? { text: 'at', iso: login.lastErrorAt } : null, notes: cached, error: login.lastError };
  }
  // A refresh failed without an error on record (cannot happen today); still say what serves.
  if (cached.length > 0) return { label: { glyph: '◐', word: 'stale', tone: 'busy' }, when: null, notes: cached, error: null };
  const ok: Label = { glyph: '●', word: 'ok', tone: 'good' };
  if (kind !== 'oidc') return { label: ok, when: null, notes: [], error: null };
  if (login.configurationFetchedAt === null) return { label: { glyph: '○', word: 'waiting', tone: 'idle' }, when: null, notes: ['configuration not fetched yet'], error: null };
  return { label: ok, when: { text: 'configuration fetched at', iso: login.configurationFetchedAt }, notes: [], error: null };
}
