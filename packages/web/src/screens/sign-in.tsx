import { useState } from 'preact/hooks';
import { call } from '../api';
import type { SignedIn } from '../api-types.gen';
import type { Session } from '../types';
import { ErrorLine, message } from '../ui';

export function SignIn({ notice, onSignedIn }: { notice: string; onSignedIn: (s: Session) => void }) {
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!username || !password) {
      setError('Give your user name and password. An admin adds users with: greenfinger user add <name>');
      return;
    }
    setBusy(true);
    setError('');
    try {
      const { data } = await call<SignedIn>('POST', '/v2/login', { username, password });
      onSignedIn({
        token: data.token,
        username: data.username,
        roles: data.roles,
        expiresAt: Date.now() + data.expiresInSeconds * 1000,
      });
    } catch (err) {
      setError(message(err));
      setBusy(false);
    }
  };

  return (
    <main id="main" class="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title" noValidate>
        <h1 id="sign-in-title">
          <img src="favicon.svg" alt="" width={28} height={28} /> Greenfinger
        </h1>
        <p class="muted">Sign in to crawl sites, watch crawls and search what they kept.</p>
        {notice ? (
          <p class="notice" role="status">
            {notice}
          </p>
        ) : null}
        <label for="username">Username</label>
        <input
          id="username"
          name="username"
          autocomplete="username"
          value={username}
          onInput={(e) => setUsername(e.currentTarget.value)}
          required
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
          required
        />
        <ErrorLine error={error} what="Not signed in" />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
