import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A site that changes between two crawls (issue 27's "done when"), on loopback: 30 pages whose every answer differs
// in its times, counters and tokens. `edit()` then edits 3 pages, changes only the date of 1, deletes 1 (it answers
// 404; the index still links it, so a merge revisits it) and creates 1 (linked from the first edited page).

export const PAGES = 30;
export const EDITED = [3, 12, 21];
export const DATE_ONLY = 5;
export const DELETED = 7;
export const CREATED = 31;
const WORDS = ['amber', 'birch', 'cedar', 'dune', 'ember', 'fern', 'glade', 'heath', 'iris', 'juniper'];

/** The site's state: whether it was edited since the first crawl. */
interface SiteState {
  edited: boolean;
}

/** Distinct words per page, so no two pages share their text (content dedup). */
function topic(n: number): string {
  return `${WORDS[n % 10]} ${WORDS[Math.floor(n / 10) % 10]} number ${n}`;
}

/**
 * One page: its article names its topic, then volatile lines that differ on every request — the time it was
 * served, a view counter, a relative time, a session token — and a footer with the time of the request.
 */
function page(state: SiteState, n: number): string {
  const now = new Date();
  const edited = state.edited && EDITED.includes(n);
  const updated = state.edited && n === DATE_ONLY ? '5 December 2026' : '4 December 2026';
  const views = Math.floor(Math.random() * 100_000).toLocaleString('en-US');
  const token = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `<!doctype html><html><head><title>Page ${n}</title></head><body>
<nav><a href="/">home</a></nav>
<main><article><h1>Page ${n}: ${topic(n)}</h1>
<p>This page is about ${topic(n)}. It tells the long story of the ${topic(n)} grove, how it grew along the river
and how the people of the valley came to care for it over many seasons of rain and sun.</p>
<p>${edited ? `The grove of ${topic(n)} was replanted in spring after the flood washed the old trees away.` : `The grove of ${topic(n)} still stands where it always stood, old and quiet.`}</p>
${edited && n === EDITED[0] ? `<p>Its seedlings went to <a href="${CREATED}.html">a new grove</a>.</p>` : ''}
<p>Updated ${updated}. Page generated at ${now.toISOString()} (${now.toUTCString()}).</p>
<p>${views} views · last comment ${1 + Math.floor(Math.random() * 50)} minutes ago · session: ${token}</p>
</article></main>
<footer>Served at ${now.toTimeString()}</footer></body></html>`;
}

/**
 * The index links every page of the first crawl (the deleted one too: merge revisits it and finds it gone); the new
 * page is linked from the first edited one.
 */
function index(prefix: string): string {
  const links = Array.from(
    { length: PAGES },
    (_, i) => `<li><a href="${prefix}p/${i + 1}.html">Page ${i + 1}</a></li>`,
  );
  return `<!doctype html><html><head><title>Groves</title></head><body><h1>Groves</h1><ul>${links.join('')}</ul>
<p>Generated at ${new Date().toISOString()}</p></body></html>`;
}

/** The changing site, served under any one-letter prefix (`/a/`, `/b/`: one catalog each, one shared state). */
export interface ChangingSite {
  readonly origin: string;
  /** A page's url under a prefix. */
  url(prefix: string, n: number): string;
  /** Edit the site: 3 pages edited, 1 only redated, 1 deleted, 1 created. */
  edit(): void;
  /** The change set a catalog of a prefix should show after `edit()`, each list sorted. */
  expected(prefix: string): { added: string[]; changed: string[]; removed: string[] };
  close(): Promise<void>;
}

export async function startChangingSite(): Promise<ChangingSite> {
  const state: SiteState = { edited: false };
  const server = createServer((req, res) => {
    const m = /^\/([a-z])\/(?:p\/(\d+)\.html)?$/.exec(req.url ?? '');
    const n = Number(m?.[2]);
    const exists = m && (!m[2] || (n >= 1 && n <= PAGES) || (state.edited && n === CREATED));
    if (!m || !exists || (state.edited && n === DELETED)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(m[2] ? page(state, n) : index(`/${m[1]}/`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = (prefix: string, n: number) => `${origin}/${prefix}/p/${n}.html`;
  return {
    origin,
    url,
    edit: () => {
      state.edited = true;
    },
    expected: (prefix) => ({
      added: [url(prefix, CREATED)],
      changed: EDITED.map((n) => url(prefix, n)).sort(),
      removed: [url(prefix, DELETED)],
    }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
