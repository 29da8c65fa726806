import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { makeDocx, makePdf } from './documents.js';
import { closeServer, listen } from './loopback.js';

/*
 * The flow site: one page or document per stage of seed 002's crawl flow, so a test can assert every outcome by name
 * (docs/flow.md). Pages can be removed between two runs (orphans), and the sitemap's lastmod is fixed in the past.
 */

/** One request the flow site answered. */
export interface FlowRequest {
  method: string;
  path: string;
  status: number;
}

export interface FlowSite extends AsyncDisposable {
  readonly origin: string;
  readonly startUrl: string;
  readonly requests: readonly FlowRequest[];
  /** Requests for a path (path + query), any method, or only `method`. */
  count(path: string, method?: string): number;
  /** Answer 404 for a path from now on, and drop every link to it from the pages. */
  remove(path: string): void;
  /** Replace the body of a page (html) from now on. */
  change(path: string, html: string): void;
  /** Serve any bytes at a path from now on. */
  put(path: string, body: Buffer, type: string): void;
  clear(): void;
  close(): Promise<void>;
}

/** A word found on one page or document only: searching for it finds exactly that resource. */
export const FLOW_WORDS = {
  guide: 'marigold',
  canonicalTarget: 'begonia',
  sphinx: 'hollyhock',
  headerNofollow: 'lavender',
  followedFromNoindex: 'foxglove',
  pdf: 'zinnia',
  docx: 'snapdragon',
  txt: 'periwinkle',
  md: 'camellia',
  csv: 'hibiscus',
  fromPdf: 'gardenia',
  removable: 'wisteria',
  confidential: 'heliotrope',
  sitemapOnly: 'verbena',
} as const;

/** What each path ends as in a default crawl of the flow site (documents on, canonical on). */
export const FLOW_OUTCOMES: Record<string, string> = {
  '/': 'SAVED',
  '/guide.html': 'SAVED',
  '/guide-print.html': 'REJECTED_NONCANONICAL:html',
  '/header-canonical.html': 'REJECTED_NONCANONICAL:link-header',
  '/print-only.html': 'REJECTED_NONCANONICAL:html',
  '/canonical-target.html': 'SAVED',
  '/sphinx.html': 'SAVED',
  '/header-noindex.html': 'REJECTED_ROBOTS_META_NOINDEX',
  '/followed-from-noindex.html': 'SAVED',
  '/header-nofollow.html': 'SAVED',
  '/nofollow-links.html': 'SAVED',
  '/followed.html': 'SAVED',
  '/docs/manual.pdf': 'SAVED',
  '/docs/plan.docx': 'SAVED',
  '/docs/readme.txt': 'SAVED',
  '/docs/notes.md': 'SAVED',
  '/docs/table.csv': 'SAVED',
  '/docs/broken.pdf': 'REJECTED_IMPORT:unreadable',
  '/from-pdf.html': 'SAVED',
  '/removable.html': 'SAVED',
  '/confidential.html': 'SAVED',
  '/sitemap-only.html': 'SAVED',
};

/** Paths the crawl must never request: reachable only through nofollow. */
export const NEVER_REQUESTED = ['/only-via-nofollow-page.html', '/secret-nofollow.html'];

/** The sitemap's lastmod of every page it lists: long before any test runs. */
export const SITEMAP_LASTMOD = '2020-01-01';

function page(title: string, body: string, head = ''): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head>
<body><main><h1>${title}</h1>
${body}
</main></body></html>
`;
}

function para(word: string, topic: string): string {
  return `<p>This page is about ${topic}. The word ${word} appears here and nowhere else on the site, in a paragraph long
enough to be the article: gardeners plant seeds in spring, water them through summer and collect them in autumn, a cycle
that repeats year after year in every garden of the valley.</p>`;
}

interface Entry {
  body: Buffer;
  type: string;
  headers?: Record<string, string>;
}

function sitePages(origin: string): Map<string, Entry> {
  const w = FLOW_WORDS;
  const html = (title: string, body: string, head = '', headers?: Record<string, string>): Entry => ({
    body: Buffer.from(page(title, body, head)),
    type: 'text/html; charset=utf-8',
    ...(headers ? { headers } : {}),
  });
  const links = [
    '/guide.html',
    '/guide-print.html',
    '/header-canonical.html',
    '/print-only.html',
    '/sphinx.html',
    '/header-noindex.html',
    '/header-nofollow.html',
    '/nofollow-links.html',
    '/docs/manual.pdf',
    '/docs/plan.docx',
    '/docs/readme.txt',
    '/docs/notes.md',
    '/docs/table.csv',
    '/docs/broken.pdf',
    '/removable.html',
    '/confidential.html',
  ];
  const m = new Map<string, Entry>();
  m.set(
    '/',
    html(
      'Flow site',
      `<p>The start page of the flow site links every stage of the crawl flow.</p>
<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('\n')}</ul>`,
    ),
  );
  m.set('/guide.html', html('Guide', para(w.guide, 'the guide'), `<link rel="canonical" href="${origin}/guide.html">`));
  m.set(
    '/guide-print.html',
    html('Guide (print)', para(w.guide, 'the guide'), '<link rel="canonical" href="/guide.html">'),
  );
  m.set('/header-canonical.html', {
    ...html('Guide (header)', para(w.guide, 'the guide')),
    headers: { link: `<${origin}/guide.html>; rel="canonical"` },
  });
  m.set(
    '/print-only.html',
    html('Print only', para(w.canonicalTarget, 'print'), '<link rel="canonical" href="/canonical-target.html">'),
  );
  m.set('/canonical-target.html', html('Canonical target', para(w.canonicalTarget, 'the canonical copy')));
  m.set(
    '/sphinx.html',
    html(
      'Sphinx page',
      para(w.sphinx, 'documentation'),
      '<link rel="canonical" href="https://docs.example.org/sphinx.html">',
    ),
  );
  m.set(
    '/header-noindex.html',
    html(
      'Noindex by header',
      `${para('noindexword', 'hidden things')}<a href="/followed-from-noindex.html">more</a>`,
      '',
      {
        'x-robots-tag': 'noindex',
      },
    ),
  );
  m.set(
    '/followed-from-noindex.html',
    html('Followed from noindex', para(w.followedFromNoindex, 'links of noindex pages')),
  );
  m.set(
    '/header-nofollow.html',
    html(
      'Nofollow by header',
      `${para(w.headerNofollow, 'nofollow')}<a href="/only-via-nofollow-page.html">x</a>`,
      '',
      {
        'x-robots-tag': 'greenfinger: nofollow',
      },
    ),
  );
  m.set('/only-via-nofollow-page.html', html('Never', para('neverword', 'nothing')));
  m.set(
    '/nofollow-links.html',
    html(
      'Nofollow links',
      `${para('linksword', 'links')}<a rel="nofollow" href="/secret-nofollow.html">secret</a> <a href="/followed.html">followed</a>`,
    ),
  );
  m.set('/secret-nofollow.html', html('Secret', para('secretword', 'secrets')));
  m.set('/followed.html', html('Followed', para('followedword', 'followed links')));
  m.set('/docs/manual.pdf', {
    body: makePdf({
      title: 'Garden manual',
      author: 'Flow Site',
      pages: [
        `The garden manual explains ${w.pdf} beds.\n\nWater the beds every morning in summer.`,
        'The second page covers compost and mulch for the winter months.',
      ],
      links: [`${origin}/from-pdf.html`],
    }),
    type: 'application/pdf',
  });
  m.set('/from-pdf.html', html('Linked from the PDF', para(w.fromPdf, 'a page only the PDF links')));
  m.set('/docs/plan.docx', {
    body: makeDocx({
      title: 'Planting plan',
      paragraphs: ['# Planting plan', `Rows of ${w.docx} along the south fence.`, 'Tulips go in the autumn.'],
    }),
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  });
  m.set('/docs/readme.txt', {
    body: Buffer.from(
      `Readme of the seed library\n\nBorrow ${w.txt} seeds for a season and bring back twice as many.\n`,
    ),
    type: 'text/plain; charset=utf-8',
  });
  m.set('/docs/notes.md', {
    body: Buffer.from(`# Notes on shade\n\nPlant **${w.md}** in the [shade](${origin}/guide.html) of tall trees.\n`),
    type: 'text/markdown; charset=utf-8',
  });
  m.set('/docs/table.csv', {
    body: Buffer.from(`plant,month,colour\n${w.csv},june,red\ntulip,april,yellow\n`),
    type: 'text/csv; charset=utf-8',
  });
  m.set('/docs/broken.pdf', {
    body: Buffer.from('%PDF-1.7\nthis is not a pdf at all, only its first line\n'),
    type: 'application/pdf',
  });
  m.set('/removable.html', html('Removable', para(w.removable, 'a page that goes away')));
  m.set('/confidential.html', html('Confidential', `${para(w.confidential, 'secrets')}<p>CONFIDENTIAL</p>`));
  m.set('/sitemap-only.html', html('Sitemap only', para(w.sitemapOnly, 'a page only the sitemap lists')));
  m.set('/robots.txt', {
    body: Buffer.from(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap.xml\n`),
    type: 'text/plain',
  });
  const listed = ['/', '/guide.html', '/followed.html', '/sitemap-only.html', '/docs/manual.pdf'];
  m.set('/sitemap.xml', {
    body: Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${listed.map((p) => `  <url><loc>${origin}${p}</loc><lastmod>${SITEMAP_LASTMOD}</lastmod></url>`).join('\n')}
</urlset>
`),
    type: 'application/xml',
  });
  return m;
}

/**
 * Start the flow site on 127.0.0.1. Every answer carries a strong ETag and the site ignores conditional requests
 * (it always answers 200), as many do. Use with `await using site = await startFlowSite()`. */
export async function startFlowSite(): Promise<FlowSite> {
  const requests: FlowRequest[] = [];
  let pages = new Map<string, Entry>();
  const removed = new Set<string>();
  const server: Server = createServer({ keepAlive: true }, (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    const entry: FlowRequest = { method: req.method ?? 'GET', path, status: 0 };
    requests.push(entry);
    const found = removed.has(path) ? undefined : pages.get(path);
    const head = req.method === 'HEAD';
    if (!found) {
      entry.status = 404;
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(head ? undefined : '<html><head><title>Not found</title></head><body>Not found</body></html>');
      return;
    }
    entry.status = 200;
    // A strong ETag of the bytes, and no conditional GET: a server the metadata checksum is for.
    const etag = `"${createHash('sha256').update(found.body).digest('hex').slice(0, 16)}"`;
    res.writeHead(200, { 'content-type': found.type, 'content-length': found.body.length, etag, ...found.headers });
    res.end(head ? undefined : found.body);
  });
  const port = await listen(server);
  const origin = `http://127.0.0.1:${port}`;
  pages = sitePages(origin);
  const dropLinks = (path: string) => {
    for (const [p, e] of pages) {
      if (!e.type.startsWith('text/html')) continue;
      const html = e.body.toString('utf8');
      const without = html.replace(new RegExp(`<li><a href="${path}">[^<]*</a></li>`, 'g'), '');
      if (without !== html) pages.set(p, { ...e, body: Buffer.from(without) });
    }
  };
  const site: FlowSite = {
    origin,
    startUrl: `${origin}/`,
    requests,
    count: (path, method) => requests.filter((r) => r.path === path && (!method || r.method === method)).length,
    remove: (path) => {
      removed.add(path);
      dropLinks(path);
    },
    change: (path, html) => {
      pages.set(path, { body: Buffer.from(html), type: 'text/html; charset=utf-8' });
    },
    put: (path, body, type) => {
      pages.set(path, { body, type });
    },
    clear: () => {
      requests.length = 0;
    },
    close: () => closeServer(server),
    [Symbol.asyncDispose]: () => closeServer(server),
  };
  return site;
}
