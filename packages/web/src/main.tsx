import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, isAdmin, loadSession, saveSession, whenSignedOut } from './api';
import { CatalogForm } from './screens/catalog-form';
import { Catalogs } from './screens/catalogs';
import { Monitor } from './screens/monitor';
import { Search } from './screens/search';
import { SignIn } from './screens/sign-in';
import { SystemScreen } from './screens/system';
import { UrlDetail } from './screens/url-detail';
import { Urls } from './screens/urls';
import type { Session } from './types';
import { href, useRoute } from './ui';

const NAV = [
  ['catalogs', 'Catalogs'],
  ['search', 'Search'],
  ['urls', 'Urls'],
  ['system', 'System'],
] as const;

function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  const [notice, setNotice] = useState('');
  const route = useRoute();
  useEffect(
    () =>
      whenSignedOut((why) => {
        setNotice(`You were signed out (${why}). Sign in again to go on.`);
        setSession(null);
      }),
    [],
  );

  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignedIn={(s) => {
          saveSession(s);
          setNotice('');
          setSession(s);
        }}
      />
    );
  }

  const signOut = async () => {
    await call('POST', '/v2/logout').catch(() => undefined);
    saveSession(null);
    setNotice('You are signed out.');
    setSession(null);
    location.hash = '';
  };

  const admin = isAdmin(session);
  const [screen = 'catalogs', arg] = route.path;
  const key = `${route.path.join('/')}?${route.query.toString()}`;
  let body: preact.JSX.Element;
  if (screen === 'catalogs' && (arg === 'new' || arg === 'edit') && admin) {
    body = <CatalogForm key={key} editing={arg === 'edit' ? route.path[2] : undefined} />;
  } else if (screen === 'monitor' && arg) body = <Monitor key={arg} catalogRef={arg} admin={admin} />;
  else if (screen === 'search') body = <Search key="search" query={route.query} />;
  else if (screen === 'urls') body = <Urls key={key} query={route.query} />;
  else if (screen === 'url' && arg) body = <UrlDetail key={arg} urlId={arg} />;
  else if (screen === 'system') body = <SystemScreen />;
  else body = <Catalogs admin={admin} />;

  return (
    <>
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <a class="brand" href={href('catalogs')}>
          <img src="favicon.svg" alt="" width={20} height={20} /> Greenfinger
        </a>
        <nav aria-label="Screens">
          <ul>
            {NAV.map(([id, label]) => (
              <li key={id}>
                <a
                  href={href(id)}
                  aria-current={screen === id || (id === 'urls' && screen === 'url') ? 'page' : undefined}
                >
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {session.username} <span class="role">{admin ? 'admin' : 'support (read only)'}</span>
          </span>
          <button type="button" class="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {body}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
