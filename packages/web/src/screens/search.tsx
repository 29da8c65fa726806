import { useEffect, useRef, useState } from 'preact/hooks';
import { get, getBlob, qs } from '../api';
import type { ApiAnswers, Catalog, SearchHit, SearchPage, VersionRow } from '../api-types.gen';
import { Highlight } from '../highlight';
import { Empty, ErrorLine, go, href, Loading, message, ScreenTitle } from '../ui';

/** '' = the API's default: hybrid when the catalogs searched have text vectors, else words. */
type Mode = '' | 'hybrid' | 'words' | 'meaning' | 'pictures';
const MODES: Array<[Mode, string]> = [
  ['', 'Best (default)'],
  ['hybrid', 'Hybrid'],
  ['words', 'Words'],
  ['meaning', 'Meaning'],
  ['pictures', 'Pictures'],
];

/** What the address holds besides the query: every choice of the form. */
interface Choice {
  mode: Mode;
  catalog: string;
  cat: string;
  version: string;
  detail: string;
}

interface Picture {
  key: string;
  /** The stored picture as an object url; '' when its bytes could not be read (the card shows its address). */
  src: string;
  alt: string;
  hit: SearchHit;
}

/**
 * The stored bytes of each picture a pictures search found (one result per picture, the pages that show it in
 * `pages`), read through the first page that shows it.
 */
async function picturesOf(hits: SearchHit[], signal: AbortSignal): Promise<Picture[]> {
  const out: Picture[] = [];
  for (const hit of hits) {
    const page = hit.pages?.[0];
    const blob = page ? await getBlob(`/v2/resource/${page.id}/image/${hit.imageId}`, signal).catch(() => null) : null;
    out.push({
      key: hit.id,
      src: blob?.type.startsWith('image/') ? URL.createObjectURL(blob) : '',
      alt: hit.alt || hit.caption || `A picture from ${page?.title ?? hit.url}`,
      hit,
    });
  }
  return out;
}

/** A version's line in the picker: its number and what it is (the one served, an older one kept, being written). */
function versionLabel(v: VersionRow): string {
  const what = v.serving
    ? 'served'
    : v.state === 'running'
      ? 'being written'
      : v.published
        ? 'kept'
        : v.state === 'incomplete'
          ? 'incomplete'
          : v.state;
  return `Version ${v.version} · ${what} · ${v.saved} pages`;
}

/**
 * One box, the modes (the default, hybrid, words, meaning, pictures: one card per picture), a catalog filter, a
 * category filter (`cat`), a version picker once one catalog is chosen (`version`: search a kept version instead of
 * the served one), the detail-pages toggle (`detail=off` in the address), cursor paging. The status line says which
 * mode answered.
 */
export function Search({ query }: { query: URLSearchParams }) {
  const q = query.get('q') ?? '';
  const mode = (query.get('mode') as Mode | null) ?? '';
  const catalog = query.get('catalog') ?? '';
  const cat = query.get('cat') ?? '';
  const version = catalog ? (query.get('version') ?? '') : '';
  const detail = query.get('detail') === 'off' ? 'off' : '';
  const cursor = query.get('cursor') ?? '';
  /** Pictures like one (a pictures result's id): the "like this" link of a picture card. */
  const like = query.get('like') ?? '';
  const [text, setText] = useState(q);
  const [catalogs, setCatalogs] = useState<Catalog[]>([]);
  const [cats, setCats] = useState<ApiAnswers['GET /v2/catalog/cats']>([]);
  const [versions, setVersions] = useState<VersionRow[]>([]);
  const [page, setPage] = useState<SearchPage | null>(null);
  const [pictures, setPictures] = useState<Picture[] | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const asked = query.has('q') || like !== '';

  useEffect(() => {
    get<Catalog[]>('/v2/catalog').then(setCatalogs, () => undefined);
    get<ApiAnswers['GET /v2/catalog/cats']>('/v2/catalog/cats').then(setCats, () => undefined);
  }, []);
  useEffect(() => {
    setVersions([]);
    if (!catalog) return;
    const ac = new AbortController();
    get<VersionRow[]>(`/v2/crawl/${encodeURIComponent(catalog)}/versions`, ac.signal).then(
      (rows) => !ac.signal.aborted && setVersions(rows),
      () => undefined,
    );
    return () => ac.abort();
  }, [catalog]);
  useEffect(() => setText(q), [q]);

  useEffect(() => {
    if (!asked) return;
    const ac = new AbortController();
    setBusy(true);
    setError('');
    setPictures(null);
    const path =
      `/v2/search` +
      qs({
        q: like ? '' : q,
        mode,
        catalog,
        cat,
        version,
        like,
        size: mode === 'pictures' ? 20 : 10,
        cursor,
        preferDetailPages: detail === 'off' && mode !== 'pictures' ? false : undefined,
      });
    get<SearchPage>(path, ac.signal)
      .then(async (p) => {
        if (ac.signal.aborted) return;
        setPage(p);
        if (mode === 'pictures') setPictures(await picturesOf(p.results, ac.signal));
      })
      .catch((err) => {
        if (ac.signal.aborted) return;
        setPage(null);
        setError(message(err));
      })
      .finally(() => !ac.signal.aborted && setBusy(false));
    return () => ac.abort();
  }, [q, mode, catalog, cat, version, detail, cursor, asked, like]);

  useEffect(
    () => () => {
      for (const p of pictures ?? []) URL.revokeObjectURL(p.src);
    },
    [pictures],
  );

  // A choice made before the address caught up with the last one (a mode, then at once a catalog) keeps both.
  const chosenNow = useRef<Choice>({ mode, catalog, cat, version, detail });
  useEffect(() => {
    chosenNow.current = { mode, catalog, cat, version, detail };
  }, [mode, catalog, cat, version, detail]);
  const run = (next: Partial<Choice>) => {
    const now = chosenNow.current;
    const nextCatalog = next.catalog ?? now.catalog;
    const wanted: Choice = {
      mode: next.mode ?? now.mode,
      catalog: nextCatalog,
      cat: next.cat ?? now.cat,
      // A version belongs to one catalog: choosing another catalog (or none) goes back to the served version.
      version: nextCatalog === now.catalog ? (next.version ?? now.version) : '',
      detail: next.detail ?? now.detail,
    };
    chosenNow.current = wanted;
    go('search', { q: text, ...wanted });
  };

  const published = catalogs.filter((c) => c.searchVersion >= 0 && (!cat || (c.settings.cat ?? 'other') === cat));
  const chosen = catalogs.find((c) => c.name === catalog || c.id === catalog);
  const noVectors = mode === 'meaning' && chosen && !(chosen.settings.outputs ?? []).includes('vector');

  return (
    <section>
      <ScreenTitle>Search</ScreenTitle>
      {/* biome-ignore lint/a11y/useSemanticElements: a form with the search landmark; <search> is too new for some browsers */}
      <form
        role="search"
        class="search-form"
        onSubmit={(e) => {
          e.preventDefault();
          run({});
        }}
      >
        <div class="search-box">
          <label for="q" class="sr-only">
            Search
          </label>
          <input
            id="q"
            type="search"
            name="q"
            value={text}
            placeholder="json dumps"
            onInput={(e) => setText(e.currentTarget.value)}
            aria-describedby="search-help"
          />
          <button type="submit">Search</button>
        </div>
        <div class="search-options">
          <fieldset class="modes">
            <legend>Mode</legend>
            {MODES.map(([m, label]) => (
              <label key={m} class="check">
                <input
                  type="radio"
                  name="mode"
                  value={m || 'default'}
                  checked={mode === m}
                  onChange={() => run({ mode: m })}
                />{' '}
                {label}
              </label>
            ))}
          </fieldset>
          <div class="field">
            <label for="search-catalog">Catalog</label>
            <select id="search-catalog" value={catalog} onChange={(e) => run({ catalog: e.currentTarget.value })}>
              <option value="">Every published catalog</option>
              {published.map((c) => (
                <option key={c.id} value={c.name}>
                  {c.name}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="search-cat">Category</label>
            <select id="search-cat" value={cat} onChange={(e) => run({ cat: e.currentTarget.value })}>
              <option value="">Every category</option>
              {cats.map((c) => (
                <option key={c.cat} value={c.cat}>
                  {c.cat} ({c.catalogs})
                </option>
              ))}
            </select>
          </div>
          {catalog ? (
            <div class="field">
              <label for="search-version">Version</label>
              <select id="search-version" value={version} onChange={(e) => run({ version: e.currentTarget.value })}>
                <option value="">The served version</option>
                {versions.map((v) => (
                  <option key={v.version} value={String(v.version)}>
                    {versionLabel(v)}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          <label class="check">
            <input
              type="checkbox"
              name="detail"
              checked={detail !== 'off'}
              onChange={(e) => run({ detail: e.currentTarget.checked ? '' : 'off' })}
            />{' '}
            Articles above listings
          </label>
        </div>
        <p id="search-help" class="muted">
          {mode === ''
            ? 'Best: hybrid (words and meaning fused) when the catalogs have text vectors, else words. A blank box lists what was kept, newest first.'
            : mode === 'hybrid'
              ? 'Hybrid: pages holding the words and pages about the same thing, fused by rank, one result per page.'
              : mode === 'words'
                ? 'Words: pages holding these words, best first, with the passages that match. A blank box lists what was kept, newest first.'
                : mode === 'meaning'
                  ? 'Meaning: pages about the same thing, even in other words (catalogs with the vector output only).'
                  : 'Pictures: one result per picture kept, found by its alt text, caption, file name and the titles of the pages that show it; each links to those pages. A blank box lists the pictures shown on the most pages first.'}
        </p>
      </form>

      {busy ? <Loading what={mode === 'pictures' ? 'Searching and fetching pictures' : 'Searching'} /> : null}
      <ErrorLine error={error} what="The search failed" />
      {error && /published|no version/i.test(error) ? (
        <p>Nothing is searchable until a crawl publishes a version: start one on the catalog's monitor.</p>
      ) : null}
      {!asked && !busy ? (
        <Empty>
          {published.length === 0 ? (
            <p>
              No catalog is published yet. Crawl one from <a href={href('catalogs')}>Catalogs</a>; it is searchable once
              its first version is published.
            </p>
          ) : (
            <p>Type some words and press Enter. Choose Meaning to find pages about the same thing in other words.</p>
          )}
        </Empty>
      ) : null}

      {page && !busy ? (
        <>
          <p class="muted" role="status">
            {page.total} {page.total === 1 ? 'result' : 'results'} by {page.mode}
            {page.match === 'question'
              ? ', read as a question (pages with any of its words; the best with all of them in the first three)'
              : page.match === 'any'
                ? ' (no page holds all the words: pages with any of them)'
                : ''}
            {page.likeOf ? ` like “${page.likeOf.title}” (by ${page.likeBy})` : ''} in {page.elapsedMillis} ms
            {page.note ? ` · ${page.note}` : ''}
            {page.embedding
              ? page.embedding.embedded < page.embedding.pages
                ? ` · embedding: ${page.embedding.embedded} of ${page.embedding.pages} pages — meaning search answered from those so far`
                : ` · embedding: every page has a vector, ${page.embedding.complete} of ${page.embedding.pages} with all of theirs`
              : ''}
          </p>
          {page.results.length === 0 ? (
            <Empty>
              <p>Nothing found for “{q}”.</p>
              <p>
                {noVectors
                  ? `Catalog ${chosen?.name} keeps no vectors: meaning search needs the vector output. Edit the catalog, add vector, and crawl or replay it.`
                  : mode === 'meaning'
                    ? 'Meaning search reads only catalogs with the vector output. Try Words, or add vector to a catalog and crawl it.'
                    : 'Try fewer or other words, or every catalog.'}
              </p>
            </Empty>
          ) : null}
          {mode !== 'pictures' ? (
            <ol class="results">
              {page.results.map((r) => (
                <li key={r.id}>
                  <h2>
                    <a href={r.url} rel="noreferrer">
                      {r.title || r.url}
                    </a>
                  </h2>
                  <p class="url">{r.url}</p>
                  {r.highlights.slice(0, 3).map((h, i) => (
                    <p key={i} class="passage">
                      <Highlight passage={h} />
                    </p>
                  ))}
                  <p class="meta">
                    {r.catalog} · version {r.version} ·{' '}
                    {r.fetchedAt ? `fetched ${new Date(r.fetchedAt).toLocaleString()}` : `score ${r.score.toFixed(2)}`}{' '}
                    ·{' '}
                    <a href={href(`url/${r.id}`)} aria-label={`Stored copy and why: ${r.title || r.url}`}>
                      stored copy
                    </a>
                  </p>
                </li>
              ))}
            </ol>
          ) : pictures ? (
            pictures.length === 0 ? (
              <Empty>
                <p>No picture matches. Try other words, or a catalog that keeps pictures.</p>
              </Empty>
            ) : (
              <ul class="gallery">
                {pictures.map((p) => (
                  <li key={p.key}>
                    <a href={p.hit.pictureUrl ?? p.hit.url} rel="noreferrer">
                      {p.src ? <img src={p.src} alt={p.alt} loading="lazy" /> : <span class="url">{p.hit.url}</span>}
                    </a>
                    {p.hit.highlights[0] ? (
                      <p class="passage">
                        <Highlight passage={p.hit.highlights[0]} />
                      </p>
                    ) : (
                      <p class="passage">{p.alt}</p>
                    )}
                    <p class="meta">
                      {(p.hit.pages ?? []).slice(0, 3).map((page, i) => (
                        <span key={page.id}>
                          {i > 0 ? ' · ' : 'on '}
                          <a href={page.url} rel="noreferrer">
                            {page.title || page.url}
                          </a>
                        </span>
                      ))}
                      {(p.hit.pageCount ?? 0) > 3 ? ` and ${(p.hit.pageCount ?? 0) - 3} more` : ''} ·{' '}
                      <a
                        href={href('search', { q: '', mode: 'pictures', catalog, cat, version, like: p.hit.id })}
                        aria-label={`Pictures like this one: ${p.alt}`}
                      >
                        like this
                      </a>
                    </p>
                  </li>
                ))}
              </ul>
            )
          ) : null}
          <nav class="pager" aria-label="Result pages">
            {cursor ? <a href={href('search', { q, mode, catalog, cat, version, detail, like })}>First page</a> : null}
            {page.nextCursor ? (
              <a href={href('search', { q, mode, catalog, cat, version, detail, like, cursor: page.nextCursor })}>
                Next page
              </a>
            ) : null}
          </nav>
        </>
      ) : null}
    </section>
  );
}
