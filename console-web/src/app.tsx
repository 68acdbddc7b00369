import { useState } from 'react';
import { Session } from './session';
import { forgetToken, readToken, saveToken } from './session/token-storage';
import { LoginScreen, type LoginNotice } from './shell/login-screen';

export function App() {
  const [token, setToken] = useState(() => readToken(sessionStorage));
  const [notice, setNotice] = useState<LoginNotice | null>(null);

  function endSession(reason: LoginNotice) {
    forgetToken(sessionStorage);
    setNotice(reason);
    setToken(null);
  }

  if (!token) {
    return (
      <LoginScreen
        notice={notice}
        onLogin={(accepted) => {
          saveToken(sessionStorage, accepted);
          setNotice(null);
          setToken(accepted);
        }}
      />
    );
  }
  return <Session key={token} token={token} onLogout={() => endSession('logged-out')} onRefused={() => endSession('refused')} />;
}
