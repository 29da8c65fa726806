import { useEffect, useRef, useState } from 'preact/hooks';
import { get, qs } from '../api';
import type { Catalog, UrlList } from '../api-types.gen';
import { Empty, ErrorLine, go, href, Loading, num, ScreenTitle, TableBox, useLoad, when } from '../ui';

const STATES = ['queued', 'crawling', 'done', 'failed', 'rejected', 'deleted'];
const LIMIT = 50;

/** The url ledger of a catalog's version: filtered by state, outcome and a part of the url, paged by offset. */
export function Urls({ query }: { query: URLSearchParams }) {
  const [catalogs, setCatalogs] = useState<Catalog[] | null>(null);
  useEffect(() => {
    get<Catalog[]>('/v2/catalog').then(setCatalogs, () => setCatalogs([]));
  }, []);
  const catalog = query.get('catalog') ?? (catalogs?.length === 1 ? (catalogs[0]?.name ?? '') : '');
  const status = query.get('status') ?? '';
  const outcome = query.get('outcome') ?? '';
  const q = query.get('q') ?? '';
  const offset = Number(query.get('offset') ?? 0) || 0;
  const [text, setText] = useState(q);
  const [outcomeText, setOutcomeText] = useState(outcome);

  const list = useLoad(`${catalog}|${status}|${outcome}|${q}|${offset}`, (s) =>
    catalog
      ? get<UrlList>(`/v2/urls${qs({ catalog, status, outcome, q, limit: LIMIT, offset })}`, s)
      : Promise.resolve(null),
  );
  // A filter chosen before the address caught up with the last one (a catalog, then at once a state) keeps both.
  const chosenNow = useRef({ catalog, status, outcome, q });
  useEffect(() => {
    chosenNow.current = { catalog, status, outcome, q };
  }, [catalog, status, outcome, q]);
  const apply = (next: Record<string, string | number | undefined>) => {
    const wanted = { ...chosenNow.current, ...next };
    chosenNow.current = {
      catalog: String(wanted.catalog ?? ''),
      status: String(wanted.status ?? ''),
      outcome: String(wanted.outcome ?? ''),
      q: String(wanted.q ?? ''),
    };
    go('urls', { ...wanted, offset: next.offset ?? undefined });
  };

  return (
    <section>
      <ScreenTitle>Urls</ScreenTitle>
      <p class="muted">Every url a crawl met, and what became of it. Choose one to see why.</p>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          apply({ q: text, outcome: outcomeText.trim().toUpperCase() });
        }}
      >
        <div class="field">
          <label for="u-catalog">Catalog</label>
          <select id="u-catalog" value={catalog} onChange={(e) => apply({ catalog: e.currentTarget.value })}>
            <option value="">Choose a catalog</option>
            {(catalogs ?? []).map((c) => (
              <option key={c.id} value={c.name}>
                {c.name}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="u-state">State</label>
          <select id="u-state" value={status} onChange={(e) => apply({ status: e.currentTarget.value })}>
            <option value="">Any state</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="u-outcome">Outcome</label>
          <input
            id="u-outcome"
            value={outcomeText}
            placeholder="SAVED, REJECTED_NOTFOUND…"
            onInput={(e) => setOutcomeText(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="u-q">Url contains</label>
          <input id="u-q" value={text} onInput={(e) => setText(e.currentTarget.value)} />
        </div>
        <button type="submit">Filter</button>
      </form>

      {!catalog ? (
        <Empty>
          {catalogs && catalogs.length === 0 ? (
            <p>
              No catalog yet: the ledger fills as a crawl runs. Start from <a href={href('catalogs')}>Catalogs</a>.
            </p>
          ) : (
            <p>Choose a catalog to list its urls.</p>
          )}
        </Empty>
      ) : null}
      <ErrorLine error={list.error} what="The urls could not be read" />
      {list.loading ? <Loading what="Reading the ledger" /> : null}
      {list.data ? (
        <>
          <p role="status" class="muted">
            {num(list.data.total)} {list.data.total === 1 ? 'url' : 'urls'} in version {list.data.version} of{' '}
            {list.data.catalog.name}
            {list.data.total > 0 ? `; ${offset + 1}–${Math.min(offset + LIMIT, list.data.total)} shown` : ''}
          </p>
          {list.data.items.length === 0 ? (
            <Empty>
              <p>No url matches these filters. Clear the state or outcome, or start a crawl to fill the ledger.</p>
            </Empty>
          ) : (
            <TableBox label="Urls">
              <table class="urls">
                <caption class="sr-only">Urls of {list.data.catalog.name}</caption>
                <thead>
                  <tr>
                    <th scope="col">Url</th>
                    <th scope="col">State</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Status</th>
                    <th scope="col">Depth</th>
                    <th scope="col">When</th>
                    <th scope="col">Last changed</th>
                  </tr>
                </thead>
                <tbody>
                  {list.data.items.map((u) => (
                    <tr key={u.urlId}>
                      <td class="url-cell">
                        <a href={href(`url/${u.urlId}`)} aria-label={`Why: ${u.url}`}>
                          {u.url}
                        </a>
                      </td>
                      <td>{u.state}</td>
                      <td>
                        {u.outcome}
                        {u.detail ? <span class="muted"> {u.detail}</span> : null}
                      </td>
                      <td>{u.status ?? '—'}</td>
                      <td>{u.depth}</td>
                      <td>{when(u.fetchedAt)}</td>
                      <td>
                        {when(u.changedAt)}
                        {u.changeCount > 0 ? (
                          <span class="muted">
                            {' '}
                            ({u.changeCount} {u.changeCount === 1 ? 'change' : 'changes'})
                          </span>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableBox>
          )}
          <nav class="pager" aria-label="Url pages">
            {offset > 0 ? (
              <a href={href('urls', { catalog, status, outcome, q, offset: Math.max(0, offset - LIMIT) })}>Previous</a>
            ) : null}
            {offset + LIMIT < list.data.total ? (
              <a href={href('urls', { catalog, status, outcome, q, offset: offset + LIMIT })}>Next</a>
            ) : null}
          </nav>
        </>
      ) : null}
    </section>
  );
}
