import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  error: Error | null;
}

/** A render error shows what broke instead of a blank page. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('Dashboard render error', error, info.componentStack);
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <main className="login" id="main">
        <div className="login-card" role="alert">
          <h1>The dashboard hit an error</h1>
          <p className="error">{this.state.error.message}</p>
          <p className="hint">Reloading the page usually helps; the daemon keeps running either way. The browser console has the details.</p>
          <button type="button" className="button-primary" onClick={() => location.reload()}>
            Reload
          </button>
        </div>
      </main>
    );
  }
}
