import { useId, useState, type FormEvent } from 'react';
import { checkToken } from '../api/check-token';
import { normaliseToken } from '../session/token-storage';

/** Why the login screen is showing, when it is not the first visit. */
export type LoginNotice = 'logged-out' | 'refused';

const NOTICE_TEXT: Record<LoginNotice, string> = {
  'logged-out': 'You are logged out. The token is no longer kept in this tab.',
  refused: 'Token refused — the daemon no longer accepts the token this tab had. Paste the current one.',
};

const CHECK_ERRORS = {
  refused: 'Token refused — check that you copied all of control.token, and that it belongs to this daemon.',
  unreachable: 'The daemon is not reachable at this address. Is it running?',
  failed: 'The daemon answered with an unexpected error. Its log says more.',
} as const;

export function LoginScreen({ notice, onLogin }: { notice: LoginNotice | null; onLogin(token: string): void }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const token = normaliseToken(value);
    if (token === '') {
      setError('Paste the control token first.');
      return;
    }
    setChecking(true);
    setError(null);
    const result = await checkToken(token);
    setChecking(false);
    if (result === 'accepted') onLogin(token);
    else setError(CHECK_ERRORS[result]);
  }

  return (
    <main className="login" id="main">
      <form className="login-card" onSubmit={submit} noValidate aria-labelledby="login-title">
        <p className="brand brand-large" aria-hidden="true">
          Portico
        </p>
        <h1 id="login-title">Sign in to the dashboard</h1>
        {notice && !error && (
          <p className={notice === 'refused' ? 'error' : 'notice'} role={notice === 'refused' ? 'alert' : 'status'}>
            {NOTICE_TEXT[notice]}
          </p>
        )}
        <label htmlFor={inputId}>Control token</label>
        <input
          id={inputId}
          name="token"
          type="password"
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          autoFocus
          required
          value={value}
          onChange={(e) => setValue(e.target.value)}
          aria-describedby={error ? `${errorId} ${hintId}` : hintId}
          aria-invalid={error ? true : undefined}
        />
        <p className="hint" id={hintId}>
          It is in <code>control.token</code> in the daemon’s data directory (or <code>PORTICO_CONTROL_TOKEN</code>). This tab keeps it until you log out or close the tab.
        </p>
        {error && (
          <p className="error" id={errorId} role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="button-primary" disabled={checking}>
          {checking ? 'Checking…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
