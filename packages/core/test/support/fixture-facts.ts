import type { Outcome } from '@greenfinger/core';

/** One HTML page of the fixture site that answers 200. */
export interface FixturePage {
  path: string;
  title: string;
  /** Shortest link distance from the start page `/` (0). A page only in the sitemap counts as depth 1. */
  depth: number;
  /** How a crawl first meets it. */
  via: 'start' | 'link' | 'sitemap';
  charset: 'utf-8' | 'windows-1252' | 'shift_jis';
  /** A phrase of the article text, exactly as the page reads once decoded (for search and extraction asserts). */
  phrase: string;
  /** Under /private/, disallowed by robots.txt. */
  robotsDisallowed?: true;
  /** Carries `<meta name="robots" content="noindex">`. */
  noindex?: true;
  /** Byte-identical to the other pages of the same group: only one of the group is saved. */
  exactGroup?: string;
  /** Differs from the other pages of the group by a few words: one is saved with simhash, all with sha256. */
  nearGroup?: string;
}

/** A document of the fixture site (not html) that a crawl reads with its DocumentContentParser and saves. */
export interface FixtureDocument {
  path: string;
  /** The title its parser gives it. */
  title: string;
  depth: number;
  /** The parser that reads it. */
  parser: 'pdf' | 'docx' | 'text';
  /** A phrase of its text. */
  phrase: string;
}

/** A url the crawl meets and must not save, with the outcome it should be counted under. */
export interface DroppedUrl {
  /** A path of the site, or an absolute url; `{{OTHER}}` stands for the second loopback origin. */
  url: string;
  outcome: Outcome;
  /** A second acceptable outcome, where the design leaves the choice to the implementation. */
  or?: Outcome;
  /** Link depth at which it is first met (a redirect target: the depth of the redirecting url). */
  depth: number;
  /** Met as the Location of this path's redirect rather than as a link. */
  redirectFrom?: string;
  note: string;
}

/** A picture the pages reference. */
export interface FixtureImage {
  path: string;
  contentType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  /** Pages that reference it; `*` = every HTML page (the logo). */
  referencedBy: string[];
  /** How the first referencing page names it (ImageRef.source). */
  source: 'img' | 'srcset' | 'picture' | 'og:image';
  /** Kept with the default imageMinSize (100): both sides are known to be at least 100 px. */
  kept: boolean;
}

/** Settings that change what a crawl of the fixture site saves. */
export interface ExpectedSavedOptions {
  /** Link depth limit; -1 = unlimited. A page at depth d is saved when d <= depth. @default -1 */
  depth?: number;
  /** @default true */
  robots?: boolean;
  /** @default true */
  sitemap?: boolean;
  /** @default 'sha256' */
  contentDedup?: 'sha256' | 'simhash';
  /** Documents (PDF, text) are read and saved. @default true */
  documents?: boolean;
}

const pages: FixturePage[] = [
  {
    path: '/',
    title: 'Greenfinger Gardens – practical notes for small gardens',
    depth: 0,
    via: 'start',
    charset: 'utf-8',
    phrase: 'grow food on balconies',
  },
  {
    path: '/articles.html',
    title: 'All articles – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'Tools and files',
  },
  {
    path: '/about.html',
    title: 'About us – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'swapping seedlings over a fence',
  },
  {
    path: '/article-1.html',
    title: 'Tomatoes on a balcony – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'Blossom end rot appeared once',
  },
  {
    path: '/article-2.html',
    title: 'Raising seedlings indoors – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'damping off',
  },
  {
    path: '/article-3.html',
    title: 'A compost heap that works – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'the ratio of green material to brown material',
  },
  {
    path: '/near-a.html',
    title: 'Drip irrigation in an afternoon – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'about five days, which covers most short holidays',
    nearGroup: 'drip',
  },
  {
    path: '/near-b.html',
    title: 'Drip irrigation in an afternoon – Greenfinger Gardens',
    depth: 2,
    via: 'link',
    charset: 'utf-8',
    phrase: 'about six days, which covers most longer holidays',
    nearGroup: 'drip',
  },
  {
    path: '/same-a.html',
    title: 'When is the last frost? – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'cold air sinks and collects in low corners',
    exactGroup: 'frost',
  },
  {
    path: '/same-b.html',
    title: 'When is the last frost? – Greenfinger Gardens',
    depth: 2,
    via: 'link',
    charset: 'utf-8',
    phrase: 'cold air sinks and collects in low corners',
    exactGroup: 'frost',
  },
  {
    path: '/deep/1.html',
    title: 'The soil series, part 1: What soil is made of – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'half mineral particles and half space',
  },
  {
    path: '/deep/2.html',
    title: 'The soil series, part 2: Reading a soil texture by hand – Greenfinger Gardens',
    depth: 2,
    via: 'link',
    charset: 'utf-8',
    phrase: 'smooth, shiny sausage',
  },
  {
    path: '/deep/3.html',
    title: 'The soil series, part 3: Acid, neutral and chalky soils – Greenfinger Gardens',
    depth: 3,
    via: 'link',
    charset: 'utf-8',
    phrase: 'suffer less from club root',
  },
  {
    path: '/deep/4.html',
    title: 'The soil series, part 4: Feeding the soil with mulch – Greenfinger Gardens',
    depth: 4,
    via: 'link',
    charset: 'utf-8',
    phrase: 'rot at the collar',
  },
  {
    path: '/deep/5.html',
    title: 'The soil series, part 5: Earthworms and what they tell you – Greenfinger Gardens',
    depth: 5,
    via: 'link',
    charset: 'utf-8',
    phrase: 'the soil is in good heart',
  },
  {
    path: '/deep/6.html',
    title: 'The soil series, part 6: Digging, or not digging – Greenfinger Gardens',
    depth: 6,
    via: 'link',
    charset: 'utf-8',
    phrase: 'A no-dig bed is built upwards',
  },
  {
    path: '/deep/7.html',
    title: 'The soil series, part 7: Green manures over winter – Greenfinger Gardens',
    depth: 7,
    via: 'link',
    charset: 'utf-8',
    phrase: 'winter rye or crimson clover',
  },
  {
    path: '/deep/8.html',
    title: 'The soil series, part 8: Testing your soil at home – Greenfinger Gardens',
    depth: 8,
    via: 'link',
    charset: 'utf-8',
    phrase: 'test the mixture rather than a single spot',
  },
  {
    path: '/legacy-1252.html',
    title: 'Lettre de Lyon – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'windows-1252',
    phrase: 'payé 85 € d’occasion',
  },
  {
    path: '/legacy-sjis.html',
    title: 'Bonsai diary - Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'shift_jis',
    phrase: '祖父から受け継いだ黒松の盆栽',
  },
  {
    path: '/slow.html',
    title: 'Slow-growing trees – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'Patience is the whole method',
  },
  {
    path: '/sitemap-only.html',
    title: 'Seed catalogue archive – Greenfinger Gardens',
    depth: 1,
    via: 'sitemap',
    charset: 'utf-8',
    phrase: 'came true from saved seed',
  },
  {
    path: '/noindex.html',
    title: 'Internal notes – Greenfinger Gardens',
    depth: 2,
    via: 'link',
    charset: 'utf-8',
    phrase: 'Rota for watering the shared beds',
    noindex: true,
  },
  {
    path: '/private/secret.html',
    title: 'Members-only notes – Greenfinger Gardens',
    depth: 1,
    via: 'link',
    charset: 'utf-8',
    phrase: 'combination of the shed padlock',
    robotsDisallowed: true,
  },
];

const dropped: DroppedUrl[] = [
  {
    url: '/same-b.html',
    outcome: 'REJECTED_DUPLICATE',
    depth: 2,
    note: 'byte-identical to /same-a.html; whichever of the two is handled second is the duplicate',
  },
  { url: '/noindex.html', outcome: 'REJECTED_ROBOTS_META_NOINDEX', depth: 2, note: 'meta robots noindex' },
  {
    url: '/private/secret.html',
    outcome: 'REJECTED_ROBOTS_TXT',
    depth: 1,
    note: 'robots.txt: Disallow: /private/ (never requested when robots are obeyed)',
  },
  { url: '/missing.html', outcome: 'REJECTED_NOTFOUND', depth: 1, note: '404' },
  { url: '/broken.html', outcome: 'REJECTED_BAD_STATUS', depth: 2, note: 'always 500; requested 1 + maxRetries times' },
  { url: '/loop-a', outcome: 'REJECTED_REDIRECT', depth: 2, note: '302 to /loop-b' },
  {
    url: '/loop-b',
    outcome: 'REJECTED_REDIRECT',
    depth: 2,
    redirectFrom: '/loop-a',
    note: '302 back to /loop-a, which is already known: the loop ends there',
  },
  { url: '/go-away', outcome: 'REJECTED_REDIRECT', depth: 2, note: '302 to {{OTHER}}/landing.html' },
  {
    url: '{{OTHER}}/landing.html',
    outcome: 'REJECTED_OUT_OF_SCOPE',
    depth: 2,
    redirectFrom: '/go-away',
    note: 'redirect target on another origin: never requested',
  },
  {
    url: '/old.html',
    outcome: 'REJECTED_REDIRECT',
    depth: 4,
    note: '301 to /article-1.html, already known (depth 1): not requested again',
  },
  {
    url: '/scripts/tool.py',
    outcome: 'REJECTED_NOT_MARKUP',
    or: 'REJECTED_ASSET',
    depth: 2,
    note: 'application/octet-stream',
  },
  {
    url: '/files/archive.zip',
    outcome: 'REJECTED_ASSET',
    or: 'REJECTED_NOT_MARKUP',
    depth: 2,
    note: 'application/zip',
  },
  {
    url: 'http://example.com/gardening',
    outcome: 'REJECTED_OUT_OF_SCOPE',
    depth: 1,
    note: 'off-site (home page and every article sidebar)',
  },
  { url: 'http://example.com/seeds', outcome: 'REJECTED_OUT_OF_SCOPE', depth: 2, note: 'off-site (article sidebar)' },
  {
    url: 'https://example.org/compost-guide',
    outcome: 'REJECTED_OUT_OF_SCOPE',
    depth: 2,
    note: 'off-site (article sidebar, article-3 body)',
  },
  {
    url: '{{OTHER}}/offsite.html',
    outcome: 'REJECTED_OUT_OF_SCOPE',
    depth: 1,
    note: 'same host, another loopback port: another origin',
  },
];

const documents: FixtureDocument[] = [
  {
    path: '/notes.txt',
    title: 'PLANTING NOTES - Greenfinger Gardens',
    depth: 1,
    parser: 'text',
    phrase: 'harden off tender seedlings',
  },
  { path: '/docs/report.pdf', title: 'Harvest report 2023', depth: 1, parser: 'pdf', phrase: 'Tomatoes 41 kg' },
];

const images: FixtureImage[] = [
  {
    path: '/images/photo-a.png',
    contentType: 'image/png',
    width: 200,
    height: 150,
    referencedBy: ['/article-1.html', '/article-2.html'],
    source: 'img',
    kept: true,
  },
  {
    path: '/images/photo-b.jpg',
    contentType: 'image/jpeg',
    width: 200,
    height: 150,
    referencedBy: ['/article-3.html'],
    source: 'picture',
    // The <img> fallback inside article-3's <picture>: one picture is one image, and the crawler keeps the
    // picture's largest declared source (photo-d), so this rendition is never fetched.
    kept: false,
  },
  {
    path: '/images/photo-c.png',
    contentType: 'image/png',
    width: 200,
    height: 150,
    referencedBy: ['/article-2.html'],
    source: 'srcset',
    kept: true,
  },
  {
    path: '/images/photo-d.png',
    contentType: 'image/png',
    width: 200,
    height: 150,
    referencedBy: ['/article-3.html'],
    source: 'picture',
    kept: true,
  },
  {
    path: '/images/og-card.png',
    contentType: 'image/png',
    width: 200,
    height: 150,
    referencedBy: ['/article-3.html'],
    source: 'og:image',
    kept: true,
  },
  {
    path: '/images/icon-16.png',
    contentType: 'image/png',
    width: 16,
    height: 16,
    referencedBy: ['*'],
    source: 'img',
    kept: false,
  },
];

function expectedSaved(options: ExpectedSavedOptions = {}): string[] {
  const { depth = -1, robots = true, sitemap = true, contentDedup = 'sha256', documents: docs = true } = options;
  const seenGroups = new Set<string>();
  const out: string[] = [];
  for (const p of [...pages].sort((a, b) => a.depth - b.depth)) {
    if (p.noindex) continue;
    if (robots && p.robotsDisallowed) continue;
    if (!sitemap && p.via === 'sitemap') continue;
    if (depth >= 0 && p.depth > depth) continue;
    const group = p.exactGroup ?? (contentDedup === 'simhash' ? p.nearGroup : undefined);
    if (group) {
      if (seenGroups.has(group)) continue;
      seenGroups.add(group);
    }
    out.push(p.path);
  }
  if (docs) for (const d of documents) if (depth < 0 || d.depth <= depth) out.push(d.path);
  return out;
}

/**
 * What a crawl of the fixture site (start url `/`, catalog url = the site origin) should find.
 * Everything here is checked against the running site by test/integration/fixture-site.test.ts.
 */
export const fixtureFacts = {
  startPath: '/',
  /** Every HTML page that answers 200 (including the ones a default crawl must not save). */
  pages,
  /**
   * Paths saved with the default catalog settings (robots and sitemap on, unlimited depth, sha256), one per
   * exact-duplicate group (the shallower one is listed; either is correct).
   */
  savedPaths: expectedSaved(),
  /** 21 unique saveable HTML pages and 2 documents. */
  savedCount: expectedSaved().length,
  /** Saved paths under other settings (same rules as savedPaths). */
  expectedSaved,
  /** Deepest page: /deep/8.html at depth 8; /deep/1.html → … → /deep/8.html, each only linked from the previous one. */
  maxDepth: 8,
  /** The documents a default crawl saves (documents are on by default). */
  documents,
  /** Urls met and dropped with the default settings, with their outcome. mailto:, javascript: and #fragment links are not urls to crawl. */
  dropped,
  images,
  /** Distinct pictures kept with imageMinSize 100 (photo-a is referenced by two pages, stored once). */
  keptImageCount: images.filter((i) => i.kept).length,
  /** Page→picture references of kept pictures (resource_image rows): article-1 1, article-2 2, article-3 3. */
  keptImageRefs: images.filter((i) => i.kept).reduce((n, i) => n + i.referencedBy.length, 0),
  robots: {
    disallow: ['/private/'],
    sitemap: '/sitemap.xml',
    /** `User-agent: BadBot` is disallowed everywhere. */
    disallowedAgent: 'BadBot',
  },
  /** The urls the sitemap lists (only /sitemap-only.html is not linked from any page). */
  sitemapPaths: [
    '/',
    '/articles.html',
    '/about.html',
    '/article-1.html',
    '/article-2.html',
    '/article-3.html',
    '/sitemap-only.html',
  ],
  redirects: {
    '/old.html': { status: 301, location: '/article-1.html' },
    '/loop-a': { status: 302, location: '/loop-b' },
    '/loop-b': { status: 302, location: '/loop-a' },
    '/go-away': { status: 302, location: '{{OTHER}}/landing.html' },
  } as Record<string, { status: number; location: string }>,
  statuses: { '/missing.html': 404, '/broken.html': 500 } as Record<string, number>,
  nonHtml: [
    { path: '/notes.txt', contentType: 'text/plain; charset=utf-8' },
    { path: '/docs/report.pdf', contentType: 'application/pdf' },
    { path: '/files/archive.zip', contentType: 'application/zip' },
    { path: '/scripts/tool.py', contentType: 'application/octet-stream' },
  ],
  slowPath: '/slow.html',
  /**
   * Requested more than once by a correct crawl: only the 500 page, once per retry. Redirects are not followed
   * by the fetcher (REJECTED_REDIRECT, target dispatched as its own url), so no redirect target is requested twice.
   */
  retriedPaths: ['/broken.html'],
  /** Paths a correct default crawl never requests (robots, and off-site urls are never fetched). */
  neverRequested: ['/private/secret.html'],
  /** Pages of the second loopback origin (linked, and a redirect target); a correct crawl requests none of them. */
  otherPaths: ['/offsite.html', '/landing.html'],
} as const;
