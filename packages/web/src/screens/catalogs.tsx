import { useEffect, useState } from 'preact/hooks';
import { call, get } from '../api';
import type { Catalog, RunningCatalog as Running } from '../api-types.gen';
import { Empty, ErrorLine, href, Loading, message, num, ScreenTitle, useLoad } from '../ui';

/** The catalogs as cards: url, outputs, version written against served, live progress, actions. */
export function Catalogs({ admin }: { admin: boolean }) {
  const list = useLoad('catalogs', (s) => get<Catalog[]>('/v2/catalog', s));
  const [running, setRunning] = useState<Running[]>([]);
  const [filter, setFilter] = useState('');
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');

  // Live progress: the running catalogs every 2 s (the cards' counters), the list again when a run ends.
  useEffect(() => {
    let stop = false;
    let was = 0;
    const tick = async () => {
      try {
        const r = await get<Running[]>('/v2/catalog/running');
        if (stop) return;
        setRunning(r);
        if (r.length < was) list.reload();
        was = r.length;
      } catch {
        // shown by the list's own error
      }
      if (!stop) timer = setTimeout(tick, 2000);
    };
    let timer = setTimeout(tick, 0);
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, []);

  const act = async (what: string, method: string, path: string, done: string) => {
    setError('');
    setStatus(`${what}…`);
    try {
      const r = await call(method, path);
      setStatus(`${done} ${r.message === 'ok' ? '' : `(${r.message})`}`.trim());
      list.reload();
      setRunning(await get<Running[]>('/v2/catalog/running'));
    } catch (err) {
      setStatus('');
      setError(`${what} failed: ${message(err)}`);
    }
  };

  const catalogs = (list.data ?? []).filter(
    (c) => !filter || `${c.name} ${c.url}`.toLowerCase().includes(filter.toLowerCase()),
  );
  const anyRunning = running.length > 0;

  return (
    <section aria-labelledby="catalogs-title">
      <div class="title-row">
        <ScreenTitle>Catalogs</ScreenTitle>
        {admin ? (
          <a class="button" href={href('catalogs/new')}>
            New catalog
          </a>
        ) : null}
      </div>
      {list.data && list.data.length > 3 ? (
        <p>
          <label for="catalog-filter">Filter catalogs</label>{' '}
          <input id="catalog-filter" type="text" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        </p>
      ) : null}
      <p role="status" class="status-line">
        {status}
      </p>
      <ErrorLine error={error} />
      <ErrorLine error={list.error} what="The catalogs could not be read" />
      {list.loading && !list.data ? <Loading what="Reading the catalogs" /> : null}
      {list.data && list.data.length === 0 ? (
        <Empty>
          <p>No catalog yet.</p>
          <p>
            {admin ? (
              <>
                A catalog names a site to crawl. <a href={href('catalogs/new')}>Create the first one</a>, then start it.
              </>
            ) : (
              'A catalog names a site to crawl. Ask an admin to create one; you can then watch its crawl and search it.'
            )}
          </p>
        </Empty>
      ) : null}
      <ul class="cards">
        {catalogs.map((c) => {
          const run = running.find((r) => r.catalogId === c.id);
          const outputs = c.settings.outputs ?? ['file', 'index'];
          const ref = encodeURIComponent(c.name);
          return (
            <li key={c.id} class="card">
              <h2>
                <a href={href(`monitor/${c.name}`)}>{c.name}</a>
              </h2>
              <p class="url">{c.url}</p>
              <ul class="chips" aria-label="Outputs">
                {outputs.map((o) => (
                  <li key={o}>{o}</li>
                ))}
              </ul>
              <p class="versions">
                Writing version {c.indexVersion}, serving{' '}
                {c.searchVersion >= 0 ? `version ${c.searchVersion}` : 'none yet'}
              </p>
              {run ? (
                <div class="live">
                  <p>
                    <span class="badge running">crawling</span> {num(run.counters?.saved)} saved,{' '}
                    {num(run.counters?.handled)} of {num(run.counters?.dispatched)} urls handled, {num(run.queued)}{' '}
                    queued
                  </p>
                  <progress
                    max={Math.max(1, run.counters?.dispatched ?? 1)}
                    value={run.counters?.handled ?? 0}
                    aria-label={`Crawl progress of ${c.name}`}
                  />
                </div>
              ) : null}
              <div class="actions">
                <a href={href(`monitor/${c.name}`)}>Monitor</a>
                <a href={href('search', { catalog: c.name })}>Search</a>
                <a href={href('urls', { catalog: c.name })}>Urls</a>
                {admin ? (
                  <>
                    {run ? (
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => act(`Stopping ${c.name}`, 'POST', `/v2/crawl/${ref}/interrupt`, 'Stopped.')}
                      >
                        Stop
                      </button>
                    ) : (
                      <>
                        <button
                          type="button"
                          disabled={anyRunning}
                          title={anyRunning ? 'another crawl runs: wait for it to end' : undefined}
                          onClick={() =>
                            act(`Starting ${c.name}`, 'POST', `/v2/crawl/${ref}`, `Crawl of ${c.name} started.`)
                          }
                        >
                          Crawl {c.name}
                        </button>
                        <button
                          type="button"
                          class="secondary"
                          disabled={anyRunning || c.searchVersion < 0}
                          onClick={() =>
                            act(`Updating ${c.name}`, 'POST', `/v2/crawl/${ref}/update`, `Update of ${c.name} started.`)
                          }
                        >
                          Update
                        </button>
                      </>
                    )}
                    <a href={href(`catalogs/edit/${c.name}`)}>Edit</a>
                  </>
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
