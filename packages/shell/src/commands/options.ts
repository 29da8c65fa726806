import {
  type CatalogSettings,
  CONTENT_MODES,
  type ContentMode,
  defaultCatalogSettings,
  ORPHAN_STRATEGIES,
  type OrphanStrategy,
  type OutputLayer,
} from '@greenfinger/core';
import { InvalidArgumentError } from 'commander';
import { intArg, listArg, numberArg } from '../args.js';
import type { OptionSpec } from '../command-spec.js';

/** A number from 0 to 1 (a share); the error names the flag. */
function ratioArg(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
      throw new InvalidArgumentError(`${name} must be a number from 0 to 1, got "${value}"`);
    return n;
  };
}

/** `--orphans`: ignore, delete or process, in any case. */
function orphansArg(value: string): OrphanStrategy {
  const v = value.trim().toLowerCase();
  if ((ORPHAN_STRATEGIES as readonly string[]).includes(v)) return v as OrphanStrategy;
  throw new InvalidArgumentError(`--orphans must be ${ORPHAN_STRATEGIES.join(', ')}, got "${value}"`);
}

/** `--content-mode`: text or text+image. */
function contentModeArg(value: string): ContentMode {
  const v = value.trim().toLowerCase();
  if ((CONTENT_MODES as readonly string[]).includes(v)) return v as ContentMode;
  throw new InvalidArgumentError(`--content-mode must be ${CONTENT_MODES.join(' or ')}, got "${value}"`);
}

/** Layers joined by `+` (or `,`), each one of `allowed`; the error names the flag and gives an example. */
export function parseLayers<T extends string>(
  value: string,
  allowed: readonly T[],
  example: string,
  flag = '--layers',
): T[] {
  const layers = value
    .split(/[+,]/)
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = layers.filter((l) => !allowed.includes(l as T));
  if (bad.length > 0 || layers.length === 0) {
    throw new Error(
      `${flag}: unknown layer "${bad.join(', ') || value}" — use ${allowed.join(', ')} joined by +, e.g. ${example}`,
    );
  }
  return layers as T[];
}

/** The crawl settings a catalog stores, as flags: the same on `crawl`, the other verbs and `catalog create|update`. */
export interface SettingsOptions {
  depth?: number;
  maxPages?: number;
  duration?: number;
  interval?: number;
  threads?: number;
  hostConcurrency?: number;
  burst?: number;
  include?: string[];
  exclude?: string[];
  outputs?: string;
  contentMode?: ContentMode;
  images?: boolean;
  robots?: boolean;
  sitemap?: boolean;
  maxVersions?: number;
  minPublishRatio?: number;
  orphans?: OrphanStrategy;
  maxRetries?: number;
  maxConsecutiveFailures?: number;
  trapDuplicates?: number;
  trapPatternUrls?: number;
  sessionParams?: string[];
  acceptors?: string[];
  fetcher?: string;
  extractor?: string;
  renderHosts?: string[];
  contentExtractor?: string;
  contentDedup?: string;
  documents?: boolean;
  headPass?: boolean;
  markdownFiles?: boolean;
  adaptivePace?: boolean;
  canonical?: boolean;
  recrawlSitemap?: boolean;
  changeDistance?: number;
  recrawlMin?: string;
  recrawlMax?: string;
  schedule?: string;
  webhook?: string[];
  changeFeed?: string[];
  postImportLinks?: boolean;
  metadataFilters?: unknown[];
  documentFilters?: unknown[];
  recrawlFrequencies?: unknown[];
  priorityWeights?: CatalogSettings['priorityWeights'];
}

/** The parts of a url's priority, in the order the setting names them. */
const PRIORITY_PARTS = Object.keys(defaultCatalogSettings.priorityWeights);

/**
 * `--priority-weights depth=1,type=2,…`: a weight from 0 to 100 per part named; a part not named is weighed 1. The
 * error names the flag, the part and the parts there are.
 */
export function priorityWeightsArg(value: string): CatalogSettings['priorityWeights'] {
  const weights: Record<string, number> = {};
  const example = 'depth=1,type=2,freshness=0';
  for (const pair of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [name = '', raw = ''] = pair.split('=').map((s) => s.trim());
    if (!PRIORITY_PARTS.includes(name)) {
      throw new InvalidArgumentError(
        `--priority-weights: unknown part "${name}" — use ${PRIORITY_PARTS.join(', ')}, e.g. ${example}`,
      );
    }
    const n = Number(raw);
    if (raw === '' || !Number.isFinite(n) || n < 0 || n > 100) {
      throw new InvalidArgumentError(`--priority-weights: ${name} must be a number from 0 to 100, got "${raw}"`);
    }
    weights[name] = n;
  }
  if (Object.keys(weights).length === 0) {
    throw new InvalidArgumentError(`--priority-weights takes part=weight pairs, e.g. ${example}`);
  }
  return { ...defaultCatalogSettings.priorityWeights, ...weights };
}

/** A JSON array (a list of filters or rules); the error names the flag and shows the shape. */
function jsonListArg(flag: string, example: string) {
  return (value: string): unknown[] => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new InvalidArgumentError(`${flag} takes a JSON array, e.g. '${example}'`);
    }
    if (!Array.isArray(parsed)) throw new InvalidArgumentError(`${flag} takes a JSON array, e.g. '${example}'`);
    return parsed;
  };
}

/** The crawl settings as options: the same on `crawl`, the other verbs and `catalog create|update`. */
export const SETTINGS_OPTIONS: OptionSpec[] = [
  { flags: '--depth <n>', description: 'link depth from the start url, -1 = unlimited', parse: intArg('--depth', -1) },
  {
    flags: '--max-pages <n>',
    description: 'end normally (and publish) after this many saved pages',
    parse: intArg('--max-pages', 1),
  },
  {
    flags: '--duration <minutes>',
    description: 'end normally (and publish) after this many minutes',
    parse: numberArg('--duration', 0.01),
  },
  {
    flags: '--interval <ms>',
    description: 'minimum milliseconds between two requests to one host',
    parse: intArg('--interval', 0),
  },
  { flags: '--threads <n>', description: 'pages in flight at once', parse: intArg('--threads', 1) },
  {
    flags: '--host-concurrency <n>',
    description: 'requests in flight at once to one host',
    parse: intArg('--host-concurrency', 1),
  },
  {
    flags: '--burst <n>',
    description: "request starts one host's token bucket allows at once (then one per interval; default 1)",
    parse: intArg('--burst', 1),
  },
  {
    flags: '--include <pattern>',
    description: 'only paths matching this glob (repeatable, comma list)',
    parse: listArg,
  },
  {
    flags: '--exclude <pattern>',
    description: 'skip paths matching this glob (repeatable, comma list)',
    parse: listArg,
  },
  { flags: '--outputs <layers>', description: 'output layers: file+index+vector (file is always on)' },
  {
    flags: '--content-mode <mode>',
    description:
      'what the vector layer embeds: text (default) or text+image (also each picture, by the image model GF_IMAGE_MODEL in GF_MODEL_DIR: greenfinger models pull --image)',
    parse: contentModeArg,
  },
  { flags: '--images', description: 'keep the pictures pages show' },
  { flags: '--no-images', description: 'keep no pictures' },
  { flags: '--robots', description: 'obey robots.txt' },
  { flags: '--no-robots', description: 'ignore robots.txt (only for sites you own)' },
  { flags: '--sitemap', description: 'read the sitemap' },
  { flags: '--no-sitemap', description: 'do not read the sitemap' },
  {
    flags: '--max-versions <n>',
    description: 'versions kept; the oldest beyond it are pruned after a publish',
    parse: intArg('--max-versions', 1),
  },
  {
    flags: '--min-publish-ratio <r>',
    description:
      "publish a rebuild, merge or resume only when it holds at least this share of the served version's pages (0 to 1, default 0.5)",
    parse: ratioArg('--min-publish-ratio'),
  },
  {
    flags: '--orphans <strategy>',
    description:
      'pages held that a run no longer reaches, when it reaches its end: ignore (keep them), delete (remove them) or process (fetch them again) (default ignore)',
    parse: orphansArg,
  },
  {
    flags: '--max-retries <n>',
    description: 'retries after a retryable fetch failure',
    parse: intArg('--max-retries', 0),
  },
  {
    flags: '--max-consecutive-failures <n>',
    description: 'failures in a row after which a crawl ends unpublished',
    parse: intArg('--max-consecutive-failures', 1),
  },
  {
    flags: '--trap-duplicates <n>',
    description: 'duplicate pages of one host in a row after which their url shapes are refused as a trap',
    parse: intArg('--trap-duplicates', 1),
  },
  {
    flags: '--trap-pattern-urls <n>',
    description: 'urls at most per repeating-segment path pattern and per numeric sequence (calendar, ?page=N)',
    parse: intArg('--trap-pattern-urls', 1),
  },
  {
    flags: '--session-params <names>',
    description: "the site's own session-id parameters, dropped from its urls (repeatable, comma list)",
    parse: listArg,
  },
  {
    flags: '--acceptors <names>',
    description:
      'optional acceptors to run, by name (repeatable, comma list; default all; domain-scope and start-url-prefix always run)',
    parse: listArg,
  },
  { flags: '--fetcher <name>', description: 'the fetcher, by registered name (default http)' },
  {
    flags: '--extractor <name>',
    description:
      'how pages are fetched: adaptive (rendered in Chromium only when it looks like an empty shell), http (never rendered) or browser (every page rendered) (default adaptive)',
  },
  {
    flags: '--render-hosts <hosts>',
    description: "hosts besides the page's own a rendered page may request (repeatable, comma list; default none)",
    parse: listArg,
  },
  {
    flags: '--content-extractor <name>',
    description: 'how text is taken from a page: html or readability (default html)',
  },
  {
    flags: '--content-dedup <name>',
    description: 'content dedup: sha256, simhash or a registered name (default: the node setting GF_CONTENT_DEDUP)',
  },
  { flags: '--documents', description: 'read PDF, Word, text, Markdown and CSV documents into resources (default)' },
  { flags: '--no-documents', description: 'pages only: documents are not read' },
  { flags: '--head-pass', description: 'a HEAD before each GET, so metadata filters refuse documents unfetched' },
  { flags: '--no-head-pass', description: 'no HEAD pass (default)' },
  {
    flags: '--markdown-files',
    description: "write each page's Markdown file during the crawl (on the extraction workers; costs CPU)",
  },
  { flags: '--no-markdown-files', description: 'Markdown made from the stored html when read (default)' },
  {
    flags: '--adaptive-pace',
    description: "adapt each host's rate: 429/503 halve it, slow answers slow it, fast ones earn it back",
  },
  { flags: '--no-adaptive-pace', description: "each host's rate is the setting's (default)" },
  { flags: '--canonical', description: 'a copy naming another url of the catalog as canonical is not kept (default)' },
  { flags: '--no-canonical', description: 'keep every copy, whatever canonical url it names' },
  {
    flags: '--recrawl-sitemap',
    description: 'merge skips pages whose sitemap lastmod/changefreq says not due (default)',
  },
  { flags: '--no-recrawl-sitemap', description: 'merge revisits every page, whatever the sitemap says' },
  {
    flags: '--change-distance <bits>',
    description:
      'merge: a page whose text without dates, counters and tokens is within these simhash bits is unchanged (default 0)',
    parse: intArg('--change-distance', 0),
  },
  {
    flags: '--recrawl-min <duration>',
    description: "merge: a page that keeps changing is revisited at most this often (its interval's floor; default 1h)",
  },
  {
    flags: '--recrawl-max <duration>',
    description:
      'merge: a page that never changes is revisited at least this often (default 30d; 0 turns the adaptive interval off)',
  },
  {
    flags: '--schedule <when>',
    description:
      'runs by itself under watch or serve: "every 6h", a cron expression such as "0 3 * * *", or @daily ("" = never)',
  },
  {
    flags: '--webhook <url>',
    description:
      'POST each publishing run\'s change set here, signed with GF_WEBHOOK_SECRET (repeatable; --webhook "" = none; docs/freshness.md#alerts)',
    parse: (value: string, previous: string[] = []) => [...previous, value.trim()],
  },
  {
    flags: '--change-feed <feed>',
    description:
      'merge fetches what this names changed: mediawiki:URL (api.php), rss:URL (RSS or Atom), sitemap, or none (repeatable; naming none, a catalog whose site has a sitemap reads it by default, so merge skips pages its lastmod says unchanged until their recrawl interval is due — none opts out, as merge was before; --change-feed "" = back to the default; docs/freshness.md#change-feeds)',
    parse: (value: string, previous: string[] = []) => [...previous, value.trim()],
  },
  { flags: '--post-import-links', description: "queue the links inside documents (a PDF's links) (default)" },
  { flags: '--no-post-import-links', description: 'do not follow the links inside documents' },
  {
    flags: '--metadata-filters <json>',
    description:
      'filters on headers, a JSON array (docs/flow.md), e.g. \'[{"header":"content-length","min":5000000}]\'',
    parse: jsonListArg('--metadata-filters', '[{"header":"content-type","match":"^image/"}]'),
  },
  {
    flags: '--document-filters <json>',
    description: 'filters on text, title, url or type, a JSON array, e.g. \'[{"match":"lorem ipsum"}]\'',
    parse: jsonListArg('--document-filters', '[{"field":"title","match":"^draft"}]'),
  },
  {
    flags: '--recrawl-frequencies <json>',
    description: 'minimum recrawl frequencies for merge, a JSON array, e.g. \'[{"match":"/news/","every":"1h"}]\'',
    parse: jsonListArg('--recrawl-frequencies', '[{"match":"/archive/","every":"monthly"}]'),
  },
  {
    flags: '--priority-weights <parts>',
    description:
      'what comes first: weights of depth, type, freshness, quality and sitemap, e.g. depth=1,type=2 (unnamed: 1; docs/crawling.md)',
    parse: priorityWeightsArg,
  },
];

/** `--data DIR`: every command of the one-line CLI takes it; the prompt has the one it was opened on. */
export function dataOption(description = 'data root (default ./data or GF_DATA_STORE)'): OptionSpec {
  return { flags: '--data <dir>', description, cliOnly: true };
}

/** `--verbose`: the JSON log on stderr instead of data/system/logs (the one-line CLI only). */
export function verboseOption(description = 'write the JSON log to stderr'): OptionSpec {
  return { flags: '--verbose', description, cliOnly: true };
}

/** `--json` with what its one document is. */
export function jsonOption(description: string): OptionSpec {
  return { flags: '--json', description };
}

/** Only the settings given: an absent flag keeps what the catalog has. */
export function settingsOf(o: SettingsOptions): Partial<CatalogSettings> {
  const given: Partial<CatalogSettings> = {
    depth: o.depth,
    maxPages: o.maxPages,
    durationMinutes: o.duration,
    intervalMs: o.interval,
    threads: o.threads,
    hostConcurrency: o.hostConcurrency,
    burst: o.burst,
    include: o.include,
    exclude: o.exclude,
    outputs: o.outputs
      ? parseLayers<OutputLayer>(o.outputs, ['file', 'index', 'vector'], 'file+index', '--outputs')
      : undefined,
    contentMode: o.contentMode,
    images: o.images,
    robots: o.robots,
    sitemap: o.sitemap,
    maxVersions: o.maxVersions,
    minPublishRatio: o.minPublishRatio,
    orphans: o.orphans,
    maxRetries: o.maxRetries,
    maxConsecutiveFailures: o.maxConsecutiveFailures,
    trapDuplicates: o.trapDuplicates,
    trapPatternUrls: o.trapPatternUrls,
    sessionParams: o.sessionParams,
    acceptors: o.acceptors,
    fetcher: o.fetcher,
    extractor: o.extractor,
    renderHosts: o.renderHosts,
    contentExtractor: o.contentExtractor,
    contentDedup: o.contentDedup,
    documents: o.documents,
    headPass: o.headPass,
    markdownFiles: o.markdownFiles,
    adaptivePace: o.adaptivePace,
    canonical: o.canonical,
    recrawlSitemap: o.recrawlSitemap,
    changeDistance: o.changeDistance,
    recrawlMin: o.recrawlMin,
    recrawlMax: o.recrawlMax,
    schedule: o.schedule,
    webhooks: o.webhook?.filter(Boolean),
    changeFeeds: o.changeFeed?.filter(Boolean),
    postImportLinks: o.postImportLinks,
    metadataFilters: o.metadataFilters as CatalogSettings['metadataFilters'] | undefined,
    documentFilters: o.documentFilters as CatalogSettings['documentFilters'] | undefined,
    recrawlFrequencies: o.recrawlFrequencies as CatalogSettings['recrawlFrequencies'] | undefined,
    priorityWeights: o.priorityWeights,
  };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
}
