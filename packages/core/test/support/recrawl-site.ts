import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// A small site for the adaptive recrawl interval (issue 27 item 3), on loopback: an index linking 8 pages, each
// answer stamped with the time it was served (volatile), and a log of every page request so a test can tell which
// pages a run fetched. `edit(n)` rewrites page n's article (a change).

export const RECRAWL_PAGES = 8;

/** The recrawl site: its origin, its request log and the edits a test makes. */
export interface RecrawlSite {
  readonly origin: string;
  /** A page's url. */
  url(n: number): string;
  /** The page numbers requested since the last `clearLog()`, in order. */
  readonly requested: number[];
  clearLog(): void;
  /** Rewrite page n's article: the next fetch finds it changed. */
  edit(n: number): void;
  close(): Promise<void>;
}

export async function startRecrawlSite(): Promise<RecrawlSite> {
  const edits = new Map<number, number>();
  const requested: number[] = [];
  const server = createServer((req, res) => {
    const m = /^\/(?:p\/(\d+)\.html)?$/.exec(req.url ?? '');
    const n = Number(m?.[1]);
    if (!m || (m[1] && !(n >= 1 && n <= RECRAWL_PAGES))) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    const served = `<p>Served at ${new Date().toISOString()}.</p>`;
    if (!m[1]) {
      const links = Array.from(
        { length: RECRAWL_PAGES },
        (_, i) => `<li><a href="/p/${i + 1}.html">Page ${i + 1}</a></li>`,
      );
      res.end(
        `<!doctype html><html><head><title>Orchards</title></head><body><ul>${links.join('')}</ul>${served}</body></html>`,
      );
      return;
    }
    requested.push(n);
    const words = ['apple', 'pear', 'plum', 'quince', 'cherry', 'medlar', 'apricot', 'fig'];
    const edition = edits.get(n) ?? 0;
    res.end(`<!doctype html><html><head><title>Orchard ${n}</title></head><body><main><article>
<h1>The ${words[n - 1]} orchard</h1>
<p>The ${words[n - 1]} orchard number ${n} lies on the southern slope, where the morning sun reaches it first.</p>
<p>${edition === 0 ? `Its ${words[n - 1]} trees are old and bear little fruit.` : `Its ${words[n - 1]} trees were grafted anew by the ${['first', 'second', 'third', 'fourth', 'fifth'][edition - 1] ?? 'last'} gardener.`}</p>
${served}</article></main></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    url: (n) => `${origin}/p/${n}.html`,
    requested,
    clearLog: () => {
      requested.length = 0;
    },
    edit: (n) => {
      edits.set(n, (edits.get(n) ?? 0) + 1);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
