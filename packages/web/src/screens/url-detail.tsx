import { useEffect, useState } from 'preact/hooks';
import { get, getBlob, qs } from '../api';
import type { ApiAnswers } from '../api-types.gen';
import { ErrorLine, href, Loading, message, ScreenTitle, TableBox, useLoad, when } from '../ui';

type Shown = { kind: 'text' | 'html' | 'markdown'; body: string } | { kind: 'frame'; src: string } | null;

/** The stored file each button reads: the frame shows the html. */
const FILE_OF = { text: 'text', html: 'html', frame: 'html', markdown: 'markdown' } as const;

/** What the page says while each is fetched, and the label of the box that shows it. */
const LABEL_OF = { text: 'Stored text', html: 'Stored html source', markdown: 'Markdown' } as const;

/** A file name for the downloaded Markdown: the url's last path part, else its host. */
function markdownName(url: string): string {
  const u = new URL(url);
  const last =
    u.pathname
      .split('/')
      .filter(Boolean)
      .pop()
      ?.replace(/\.[a-z0-9]+$/i, '') ?? '';
  return `${(last || u.hostname).replace(/[^\w.-]+/g, '-')}.md`;
}

/** One url: why it ended as it did, its trail, and (when saved) the stored text and html. */
export function UrlDetail({ urlId }: { urlId: string }) {
  const row = useLoad(urlId, (s) => get<ApiAnswers['GET /v2/urls/{id}']>(`/v2/urls/${urlId}`, s));
  const [shown, setShown] = useState<Shown>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState('');

  useEffect(() => () => (shown?.kind === 'frame' ? URL.revokeObjectURL(shown.src) : undefined), [shown]);

  const show = async (kind: 'text' | 'html' | 'frame' | 'markdown') => {
    setError('');
    setBusy(`Fetching the stored ${FILE_OF[kind] === 'markdown' ? 'Markdown' : FILE_OF[kind]}`);
    try {
      const blob = await getBlob(`/v2/resource/${urlId}/${FILE_OF[kind]}`);
      if (kind === 'frame') {
        // An opaque origin with no scripts: the stored page cannot reach the page or the token.
        setShown({ kind, src: URL.createObjectURL(new Blob([blob], { type: 'text/html' })) });
      } else setShown({ kind, body: await blob.text() });
    } catch (err) {
      setError(`Could not fetch it: ${message(err)}`);
    }
    setBusy('');
  };

  /** The page's Markdown saved as a file (the API answers it with the token; a plain link could not send it). */
  const download = async (url: string) => {
    setError('');
    try {
      const blob = await getBlob(`/v2/resource/${urlId}/markdown`);
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([blob], { type: 'text/markdown' }));
      a.download = markdownName(url);
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    } catch (err) {
      setError(`Could not fetch it: ${message(err)}`);
    }
  };

  if (row.error) {
    return (
      <section>
        <ScreenTitle>Url</ScreenTitle>
        <ErrorLine error={row.error} what="This url could not be read" />
        <p>
          Go back to <a href={href('urls')}>Urls</a> and choose another.
        </p>
      </section>
    );
  }
  if (!row.data) return <Loading what="Reading the url" />;
  const u = row.data;
  const saved = u.outcome === 'SAVED';

  return (
    <section>
      <ScreenTitle>Why this url ended as it did</ScreenTitle>
      <p class="url big">{u.url}</p>
      <p class="explanation" data-testid="explanation">
        {u.explanation}
      </p>
      <dl class="facts">
        <div>
          <dt>State</dt>
          <dd>{u.state}</dd>
        </div>
        <div>
          <dt>Outcome</dt>
          <dd>
            {u.outcome}
            {u.detail ? ` (${u.detail})` : ''}
          </dd>
        </div>
        <div>
          <dt>HTTP status</dt>
          <dd>{u.status ?? 'not fetched'}</dd>
        </div>
        {u.reason ? (
          <div>
            <dt>Reason</dt>
            <dd>{u.reason}</dd>
          </div>
        ) : null}
        <div>
          <dt>Depth</dt>
          <dd>{u.depth}</dd>
        </div>
        <div>
          <dt>Found on</dt>
          <dd>
            {u.referrer ? (
              <a href={href('urls', { q: u.referrer.replace(/^https?:\/\/[^/]+/, '') || '/' })}>{u.referrer}</a>
            ) : (
              'a start url'
            )}
          </dd>
        </div>
        {u.foundAs ? (
          <div>
            <dt>Found as</dt>
            <dd>
              <code>{u.foundAs}</code>
            </dd>
          </div>
        ) : null}
        {u.redirects?.length ? (
          <div>
            <dt>Redirected from</dt>
            <dd>
              <ol class="trail">
                {u.redirects.map((r) => (
                  <li key={r}>
                    <a href={href('urls', { q: r.replace(/^https?:\/\/[^/]+/, '') || '/' })}>{r}</a>
                  </li>
                ))}
              </ol>
            </dd>
          </div>
        ) : null}
        <div>
          <dt>When</dt>
          <dd>{when(u.fetchedAt)}</dd>
        </div>
        <div>
          <dt>Last changed</dt>
          <dd data-testid="changed">
            {u.changeCount > 0
              ? `${when(u.changedAt)} (${u.changeCount} ${u.changeCount === 1 ? 'change' : 'changes'} in this version)`
              : 'never in this version'}
          </dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd>{u.version}</dd>
        </div>
      </dl>
      <p>
        <a href={u.url} rel="noreferrer">
          Open the original
        </a>{' '}
        · <a href={href('urls', { status: u.state })}>More urls in state {u.state}</a>
      </p>
      {saved ? (
        <>
          <h2>What was stored</h2>
          <div class="actions">
            <button type="button" class="secondary" onClick={() => show('text')}>
              Stored text
            </button>
            <button type="button" class="secondary" onClick={() => show('html')}>
              Stored html (source)
            </button>
            <button type="button" class="secondary" onClick={() => show('frame')}>
              Stored html (rendered, sandboxed)
            </button>
            <button type="button" class="secondary" onClick={() => show('markdown')}>
              Markdown
            </button>
            <button type="button" class="secondary" onClick={() => download(u.url)}>
              Download Markdown
            </button>
          </div>
          {busy ? <Loading what={busy} /> : null}
          <ErrorLine error={error} />
          {shown && shown.kind !== 'frame' ? (
            <TableBox label={LABEL_OF[shown.kind]}>
              <pre class="stored">{shown.body}</pre>
            </TableBox>
          ) : null}
          {shown?.kind === 'frame' ? (
            <iframe class="stored" title={`Stored copy of ${u.url}`} sandbox="" src={shown.src} />
          ) : null}
        </>
      ) : (
        <p class="muted">
          Nothing was stored for this url{u.state === 'rejected' ? ': it was refused before any request.' : '.'}
        </p>
      )}
      <p class="muted">
        The same by url: <code>{`GET /v2/urls/why${qs({ url: u.url })}`}</code>
      </p>
    </section>
  );
}
