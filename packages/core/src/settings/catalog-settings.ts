import { z } from 'zod';
import { webhookUrlProblem } from '../alerts/webhook-address.js';
import { patternProblem } from '../engine/flow/regex-cache.js';
import { ConfigError } from '../errors.js';
import { changeFeedProblem, changeFeedsProblem } from '../feeds/types.js';
import { scheduleProblem } from './schedule.js';
import { envWebhookAllowPrivate } from './settings-env.js';

/** The layers a catalog's pages are written to (`outputs`); `file` is always one of them. */
export type OutputLayer = 'file' | 'index' | 'vector';

/** A name in one of the component registries (acceptors, fetchers, content extractors, content dedup). */
const componentName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]*$/, 'use a name of lower-case letters, digits, dots and dashes');

/** A regular expression a setting holds: it must compile. */
const pattern = z.string().refine((p) => patternProblem(p) === undefined, {
  message: 'not a regular expression the linear-time engine (RE2 syntax: no look-around, no back-references) runs',
});

/**
 * A metadata filter (seed 002): judged on a document's headers, from the HEAD pass when it is on, else from the
 * GET's, before its body is read. `exclude` (the default): a document it matches is REJECTED_FILTER:metadata;
 * `include`: when any include filter is given, a document must match one of them. A filter matches when the header
 * is present and every condition given holds.
 */
export const metadataFilterSchema = z.strictObject({
  /** The header's name, any case: `content-type`, `content-length`, `last-modified`, or any other. */
  header: z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'a header name'),
  /** A regular expression (case-insensitive) the header's value matches. */
  match: pattern.optional(),
  /** The header's value as a number is at least this (content-length in bytes). */
  min: z.number().optional(),
  /** The header's value as a number is at most this. */
  max: z.number().optional(),
  /** The header's value as a date (last-modified) is before this date (ISO, `2024-01-31`). */
  before: z.iso.date().or(z.iso.datetime()).optional(),
  /** The header's value as a date is after this date. */
  after: z.iso.date().or(z.iso.datetime()).optional(),
  onMatch: z.enum(['exclude', 'include']).default('exclude'),
});
export type MetadataFilter = z.infer<typeof metadataFilterSchema>;

/**
 * A document filter (seed 002): judged on what a document holds once it is read — its text, title, url or type.
 * `exclude`: a document whose field matches is REJECTED_FILTER:document; `include`: when any include filter is
 * given, a document must match one.
 */
export const documentFilterSchema = z.strictObject({
  field: z.enum(['text', 'title', 'url', 'contentType']).default('text'),
  /** A regular expression (case-insensitive, RE2 syntax: run in linear time, no look-around). */
  match: pattern,
  onMatch: z.enum(['exclude', 'include']).default('exclude'),
});
export type DocumentFilter = z.infer<typeof documentFilterSchema>;

/** How often a page may be fetched again: a sitemap `changefreq` word, or a number with ms, s, m, h, d or w. */
export const RECRAWL_EVERY = /^(?:always|hourly|daily|weekly|monthly|yearly|never|\d+(?:ms|s|m|h|d|w))$/;

/**
 * A minimum recrawl frequency (seed 002, the recrawlable resolver): on an incremental run (`merge`), a page held
 * whose url (or content type) matches is not fetched again until `every` has passed since it was fetched; before
 * that it is REJECTED_PREMATURE. The first rule that matches decides.
 */
export const recrawlFrequencySchema = z.strictObject({
  field: z.enum(['url', 'contentType']).default('url'),
  /** A regular expression (case-insensitive, RE2 syntax: run in linear time, no look-around). */
  match: pattern,
  every: z.string().regex(RECRAWL_EVERY, 'always, hourly, daily, weekly, monthly, yearly, never, or e.g. 12h, 7d'),
});
export type RecrawlFrequency = z.infer<typeof recrawlFrequencySchema>;

/** A bound of the adaptive recrawl interval: `0`, or a number with s, m, h, d or w (at most 3660d). */
export const RECRAWL_BOUND = /^(?:0|\d{1,7}(?:s|m|h|d|w))$/;

/** The schema of `recrawlMin` / `recrawlMax`, its message naming the forms accepted. */
function recrawlBound(name: string) {
  return z
    .string()
    .trim()
    .regex(RECRAWL_BOUND, `${name} takes a duration such as 30m, 1h, 2d or 4w (0: no adaptive interval)`);
}

/** The catalog setting `orphans`: what a session that reaches its end does with the pages it did not reach. */
export const ORPHAN_STRATEGIES = ['ignore', 'delete', 'process'] as const;
export type OrphanStrategy = (typeof ORPHAN_STRATEGIES)[number];

/** The catalog setting `contentMode`: what the vector layer embeds (see the schema). */
export const CONTENT_MODES = ['text', 'text+image'] as const;
export type ContentMode = (typeof CONTENT_MODES)[number];

/** The weight of one part of a url's priority: 0 (left out) to 100. */
const priorityWeight = z.number().min(0).max(100).default(1);

/** The categories a catalog can be filed under (`catalog cats`, `GET /v2/catalog/cats`). */
export const CATALOG_CATS = [
  'news',
  'tech',
  'business',
  'food',
  'travel',
  'health',
  'education',
  'entertainment',
  'other',
] as const;

/**
 * The rules for crawling one site, defined once: the type (`CatalogSettings`), the defaults
 * (`defaultCatalogSettings`) and the validation (`resolveCatalogSettings`) all come from this schema. Stored as
 * JSON on the catalog row and in each version's settings.json; a stored catalog written before a field existed
 * gets the field's default when it is resolved again.
 */
export const catalogSettingsSchema = z.strictObject({
  /** The category the catalog is filed under. @default other */
  cat: z.enum(CATALOG_CATS).default('other'),
  /** Link depth from the start url; -1 = unlimited. @default -1 */
  depth: z.number().int().min(-1).default(-1),
  /**
   * More start references besides the start url, seeded with it at depth 0 when a run begins on an empty frontier;
   * each must sit under the catalog's url (JobService.addSeeds checks and normalises them). @default []
   */
  seedUrls: z.array(z.string().min(1)).default(() => []),
  /** Saved pages after which the crawl ends normally (and publishes). @default 10000 */
  maxPages: z.number().int().min(1).default(10000),
  /** Minutes after which the crawl ends normally (and publishes). @default 30 */
  durationMinutes: z.number().min(0.01).default(30),
  /** Minimum milliseconds between two request starts to one host. @default 100 */
  intervalMs: z.number().int().min(0).default(100),
  /** Pages in flight at once across all hosts. @default 16 */
  threads: z.number().int().min(1).max(512).default(16),
  /** Requests in flight at once to one host. @default 2 */
  hostConcurrency: z.number().int().min(1).max(256).default(2),
  /**
   * Request starts one host's token bucket allows at once: it holds this many tokens and gains one per `intervalMs`
   * (or per Crawl-delay), so the rate stays 1/interval and an idle host may take `burst` requests together. 1 is a
   * plain interval between two starts. @default 1
   */
  burst: z.number().int().min(1).max(256).default(1),
  /** Path patterns (globs, `*` and `**`) a url must match when any are given. @default [] */
  include: z.array(z.string().min(1)).default(() => []),
  /** Path patterns (globs) that refuse a url. @default [] */
  exclude: z.array(z.string().min(1)).default(() => []),
  /** Output layers; `file` is always on (and first). @default ['file','index','vector'] */
  outputs: z
    .array(z.enum(['file', 'index', 'vector']))
    .min(1)
    .default((): OutputLayer[] => ['file', 'index', 'vector']),
  /**
   * What the vector layer embeds: `text` (pages, and each picture's alt text and caption, by the text model) or
   * `text+image` (also each kept picture's own bytes, by the image model GF_IMAGE_MODEL under GF_MODEL_DIR, so a
   * pictures search ranks by what a picture shows too; docs/search.md). With `text+image` and no image model there,
   * a crawl refuses to start. @default 'text'
   */
  contentMode: z.enum(CONTENT_MODES).default('text'),
  /** Keep pictures the pages reference. @default true */
  images: z.boolean().default(true),
  /** Versions kept; the oldest unpublished-and-not-serving go first. @default 10 */
  maxVersions: z.number().int().min(1).default(10),
  /**
   * A rebuild, merge or resume publishes only when its version holds at least this share of the pages of the
   * version serving now; otherwise the served version keeps serving (`--force-publish` overrides). 0 = always.
   * @default 0.5
   */
  minPublishRatio: z.number().min(0).max(1).default(0.5),
  /**
   * What a session that reaches its end does with its orphans — pages the version holds from an earlier session
   * that this session did not reach (services/orphans.ts, docs/verbs.md#orphans): `ignore` leaves them, `delete`
   * removes them from every layer (vector → index → file → db), `process` fetches them again as revisits. Any case
   * is accepted (`DELETE`). @default 'ignore'
   */
  orphans: z
    .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(ORPHAN_STRATEGIES))
    .default('ignore'),
  /** Retries after a retryable fetch failure. @default 1 */
  maxRetries: z.number().int().min(0).max(10).default(1),
  /** Obey robots.txt. @default true */
  robots: z.boolean().default(true),
  /** Read the sitemap named by robots.txt or at /sitemap.xml. @default true */
  sitemap: z.boolean().default(true),
  /** Consecutive failures after which the crawl ends unpublished. @default 20 */
  maxConsecutiveFailures: z.number().int().min(1).default(20),
  /**
   * Trap budget: duplicate (or near-duplicate) pages of one host in a row after which the url shapes of those pages
   * are refused on that host as REJECTED_TRAP:duplicates-in-a-row (docs/reliability.md). @default 20
   */
  trapDuplicates: z.number().int().min(1).default(20),
  /**
   * Trap budget: urls dispatched at most per path pattern with repeating segments (`/a/b/a/b/…`) and per numeric
   * sequence of urls each found on the one before (`?month=2025-01` → `?month=2025-02`, `?page=N`); past it
   * REJECTED_TRAP:repeating-segments / growing-query / growing-path (docs/reliability.md). @default 100
   */
  trapPatternUrls: z.number().int().min(1).default(100),
  /**
   * Session-id parameter names of this site, dropped from its urls besides the built-in list (`sid`, `PHPSESSID`,
   * `jsessionid`, `ASPSESSIONID…`, `zenid`, `osCsid`, …; docs/reliability.md). @default []
   */
  sessionParams: z.array(z.string().regex(/^[^\s&=;/?#]+$/, 'a parameter name')).default(() => []),
  /**
   * The optional acceptors to run, by name in the acceptor registry (`robots-txt`, `path-patterns`, … or a
   * registered one); the mandatory ones (`domain-scope`, `start-url-prefix`) always run. Empty = all six built-in
   * acceptors. @default []
   */
  acceptors: z.array(componentName).default(() => []),
  /** The fetcher, by name in the fetcher registry. @default 'http' */
  fetcher: componentName.default('http'),
  /**
   * How pages are fetched, by name in the extractor registry: `adaptive` (over http, rendered in Chromium only when
   * the RenderingDetector sees a shell; a site that needs none never starts a browser), `http` (the fetcher alone)
   * or `browser` (every html page rendered in Chromium). @default 'adaptive'
   */
  extractor: componentName.default('adaptive'),
  /** Hosts (host:port) besides the page's own a rendered page may request; everything else is refused. @default [] */
  renderHosts: z.array(z.string().regex(/^[^\s/?#]+$/, 'a host or host:port')).default(() => []),
  /** The content extractor, by name in the content-extractor registry: `html` or `readability`. @default 'html' */
  contentExtractor: componentName.default('html'),
  /**
   * The content dedup, by name in the content-dedup registry: `sha256`, `simhash` or a registered one;
   * empty = the node setting GF_CONTENT_DEDUP. @default ''
   */
  contentDedup: z.union([z.literal(''), componentName]).default(''),
  /**
   * Read PDF, Word (.docx), plain text, Markdown and CSV documents into resources, searchable like pages (the node
   * setting GF_DOCUMENTS=false turns them off everywhere). Off: they are REJECTED_NOT_MARKUP. @default true
   */
  documents: z.boolean().default(true),
  /**
   * The metadata pass: a HEAD request before each GET, so metadata filters, the canonical Link header and the
   * metadata checksum can refuse a document before its body is fetched. @default false
   */
  headPass: z.boolean().default(false),
  /**
   * Adapt each host's rate to its answers: a 429 or 503 halves it, answers much slower than the host's usual time slow
   * it by steps, runs of fast answers earn it back up to the setting (fetch/host-pace.ts). Off, the rate is the
   * setting's; a Retry-After of at most 30 s pauses the host either way. Off by default: on a site that answers 429 to
   * some urls and drips others (the hostile test site) it made the crawl 4-8 times longer. @default false
   */
  adaptivePace: z.boolean().default(false),
  /**
   * Write each page's Markdown file (`<id>.md` beside its `.txt`) during the crawl, converted on the extraction
   * workers. Off, a page's Markdown is made from its stored html when it is read, and `replay --layers file` writes
   * the files: converting costs more CPU than the rest of the crawl (docs/mcp.md). @default false
   */
  markdownFiles: z.boolean().default(false),
  /** Filters on a document's headers (see MetadataFilter). @default [] */
  metadataFilters: z.array(metadataFilterSchema).default(() => []),
  /** Filters on a document's text, title, url or type once it is read (see DocumentFilter). @default [] */
  documentFilters: z.array(documentFilterSchema).default(() => []),
  /**
   * Honour canonical urls (`<link rel=canonical>`, `Link: rel=canonical`): a copy naming another url of the catalog
   * is REJECTED_NONCANONICAL and the canonical url is queued instead. @default true
   */
  canonical: z.boolean().default(true),
  /** On an incremental run (`merge`), skip pages whose sitemap `lastmod`/`changefreq` says they are not due. @default true */
  recrawlSitemap: z.boolean().default(true),
  /**
   * The near-duplicate threshold of change detection (docs/freshness.md): a revisited page whose text, without its
   * volatile parts (dates, times, counters, tokens), has a simhash within this many bits (of 64) of the text held is
   * unchanged. 0: only an identical normalised text is unchanged. @default 0
   */
  changeDistance: z.number().int().min(0).max(64).default(0),
  /**
   * The adaptive recrawl interval's lower bound (docs/freshness.md#the-recrawl-interval): a page that keeps changing
   * is revisited by `merge` at most this often. A duration (`30m`, `1h`, `2d`). @default '1h'
   */
  recrawlMin: recrawlBound('recrawlMin').default('1h'),
  /**
   * The adaptive recrawl interval's upper bound: a page that never changes is revisited at least this often. `0`
   * turns the adaptive interval off (every merge revisits every page, as the sitemap and frequency rules allow).
   * @default '30d'
   */
  recrawlMax: recrawlBound('recrawlMax').default('30d'),
  /** Minimum recrawl frequencies of an incremental run (see RecrawlFrequency). @default [] */
  recrawlFrequencies: z.array(recrawlFrequencySchema).default(() => []),
  /**
   * When a run starts by itself (docs/freshness.md#schedules): `every 6h` after the last run ended, a five-field
   * cron expression (local time) or `@daily`; run by `greenfinger watch` and `serve`. Empty: never. @default ''
   */
  schedule: z
    .string()
    .trim()
    .default('')
    .superRefine((v, ctx) => {
      const problem = v ? scheduleProblem(v) : undefined;
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  /**
   * Where each publishing run's change set is POSTed, signed (docs/freshness.md#alerts): http or https urls; a host
   * that is or resolves to a loopback, link-local or private address is refused unless GF_WEBHOOK_ALLOW_PRIVATE=true.
   * @default []
   */
  webhooks: z
    .array(
      z
        .string()
        .trim()
        .superRefine((v, ctx) => {
          const problem = webhookUrlProblem(v, envWebhookAllowPrivate());
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    )
    .default(() => []),
  /**
   * Change feeds (docs/freshness.md#change-feeds): `mediawiki:URL` (a wiki's api.php recent changes), `rss:URL` (RSS
   * 2.0 or Atom) or `sitemap` (a lastmod after a page's fetch). With one, `merge` fetches only what they (and
   * `POST /v2/catalog/{id}/changed`) name changed since the last run, what its recrawl schedule says is due, and new
   * urls linked from those. Empty: the default — `sitemap` when the site has a sitemap (and `sitemap`,
   * `recrawlSitemap` are on, the recrawl interval on and no `recrawlFrequencies`), else none. `["none"]`: no feed at
   * all, every merge judges every held page. @default []
   */
  changeFeeds: z
    .array(
      z
        .string()
        .trim()
        .superRefine((v, ctx) => {
          const problem = changeFeedProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    )
    .superRefine((list, ctx) => {
      const problem = changeFeedsProblem(list);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .default(() => []),
  /** Queue the links found inside documents (a PDF's link annotations, a Word file's hyperlinks). @default true */
  postImportLinks: z.boolean().default(true),
  /**
   * The prioritizer's weights (frontier/prioritizer.ts, docs/crawling.md#priorities): a url's score is the weighted
   * mean of its depth, page type, freshness, quality and sitemap `<priority>`, each from 0 to 1; a part not named is
   * weighed 1, a weight of 0 leaves it out. `{ depth: 1, type: 0, freshness: 0, quality: 0, sitemap: 0 }` is the
   * depth-only order. @default every part 1
   */
  priorityWeights: z
    .strictObject({
      depth: priorityWeight,
      type: priorityWeight,
      freshness: priorityWeight,
      quality: priorityWeight,
      sitemap: priorityWeight,
    })
    .default(() => ({ depth: 1, type: 1, freshness: 1, quality: 1, sitemap: 1 })),
});

/** The rules for crawling one site (every field present: defaults applied). */
export type CatalogSettings = z.infer<typeof catalogSettingsSchema>;

/** Every catalog setting at its default. */
export const defaultCatalogSettings: Readonly<CatalogSettings> = Object.freeze(catalogSettingsSchema.parse({}));

/** The command-line flag of each catalog setting whose flag is not its name in kebab case. */
const CATALOG_FLAGS: Partial<Record<keyof CatalogSettings, string>> = {
  durationMinutes: '--duration',
  intervalMs: '--interval',
  webhooks: '--webhook',
  changeFeeds: '--change-feed',
};

function catalogFlag(key: string): string {
  return CATALOG_FLAGS[key as keyof CatalogSettings] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/**
 * Fill a partial (a stored catalog's settings, or only the flags given) with the defaults and validate; `file` is
 * always on and always first. Absent and `undefined` fields take their default.
 * @throws ConfigError naming the command-line flag (`--max-pages`) and what is wrong
 */
export function resolveCatalogSettings(partial: Partial<CatalogSettings> = {}): CatalogSettings {
  const given = Object.fromEntries(Object.entries(partial).filter(([, v]) => v !== undefined));
  const parsed = catalogSettingsSchema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === 'unrecognized_keys') {
      throw new ConfigError(
        issue.keys.map(catalogFlag).join(', '),
        'not a catalog setting',
        `use the settings of \`greenfinger help crawl\``,
      );
    }
    throw new ConfigError(catalogFlag(String(issue?.path[0] ?? '?')), issue?.message ?? 'invalid');
  }
  const layers = new Set(parsed.data.outputs);
  layers.add('file');
  const outputs = (['file', 'index', 'vector'] as const).filter((l) => layers.has(l));
  return { ...parsed.data, outputs };
}
