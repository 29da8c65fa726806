import type { CatalogSettings, OutputLayer } from '@greenfinger/core';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { intArg, listArg, numberArg } from '../program.js';

/** A number from 0 to 1 (a share); the error names the flag. */
function ratioArg(name: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
      throw new InvalidArgumentError(`${name} must be a number from 0 to 1, got "${value}"`);
    return n;
  };
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
  include?: string[];
  exclude?: string[];
  outputs?: string;
  images?: boolean;
  robots?: boolean;
  sitemap?: boolean;
  maxVersions?: number;
  minPublishRatio?: number;
  maxRetries?: number;
  maxConsecutiveFailures?: number;
  trapDuplicates?: number;
  trapPatternUrls?: number;
  sessionParams?: string[];
  acceptors?: string[];
  fetcher?: string;
  contentExtractor?: string;
  contentDedup?: string;
}

export function settingsOptions(command: Command): Command {
  return command
    .option('--depth <n>', 'link depth from the start url, -1 = unlimited', intArg('--depth', -1))
    .option('--max-pages <n>', 'end normally (and publish) after this many saved pages', intArg('--max-pages', 1))
    .option('--duration <minutes>', 'end normally (and publish) after this many minutes', numberArg('--duration', 0.01))
    .option('--interval <ms>', 'minimum milliseconds between two requests to one host', intArg('--interval', 0))
    .option('--threads <n>', 'pages in flight at once', intArg('--threads', 1))
    .option('--host-concurrency <n>', 'requests in flight at once to one host', intArg('--host-concurrency', 1))
    .option('--include <pattern>', 'only paths matching this glob (repeatable, comma list)', listArg)
    .option('--exclude <pattern>', 'skip paths matching this glob (repeatable, comma list)', listArg)
    .option('--outputs <layers>', 'output layers: file+index+vector (file is always on)')
    .addOption(new Option('--images', 'keep the pictures pages show'))
    .addOption(new Option('--no-images', 'keep no pictures'))
    .addOption(new Option('--robots', 'obey robots.txt'))
    .addOption(new Option('--no-robots', 'ignore robots.txt (only for sites you own)'))
    .addOption(new Option('--sitemap', 'read the sitemap'))
    .addOption(new Option('--no-sitemap', 'do not read the sitemap'))
    .option(
      '--max-versions <n>',
      'versions kept; the oldest beyond it are pruned after a publish',
      intArg('--max-versions', 1),
    )
    .option(
      '--min-publish-ratio <r>',
      "publish a rebuild, merge or resume only when it holds at least this share of the served version's pages (0 to 1, default 0.5)",
      ratioArg('--min-publish-ratio'),
    )
    .option('--max-retries <n>', 'retries after a retryable fetch failure', intArg('--max-retries', 0))
    .option(
      '--max-consecutive-failures <n>',
      'failures in a row after which a crawl ends unpublished',
      intArg('--max-consecutive-failures', 1),
    )
    .option(
      '--trap-duplicates <n>',
      'duplicate pages of one host in a row after which their url shapes are refused as a trap',
      intArg('--trap-duplicates', 1),
    )
    .option(
      '--trap-pattern-urls <n>',
      'urls at most per repeating-segment path pattern and per numeric sequence (calendar, ?page=N)',
      intArg('--trap-pattern-urls', 1),
    )
    .option(
      '--session-params <names>',
      "the site's own session-id parameters, dropped from its urls (repeatable, comma list)",
      listArg,
    )
    .option(
      '--acceptors <names>',
      'optional acceptors to run, by name (repeatable, comma list; default all; domain-scope and start-url-prefix always run)',
      listArg,
    )
    .option('--fetcher <name>', 'the fetcher, by registered name (default http)')
    .option('--content-extractor <name>', 'how text is taken from a page: html or readability (default html)')
    .option(
      '--content-dedup <name>',
      'content dedup: sha256, simhash or a registered name (default: the node setting GF_CONTENT_DEDUP)',
    );
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
    include: o.include,
    exclude: o.exclude,
    outputs: o.outputs
      ? parseLayers<OutputLayer>(o.outputs, ['file', 'index', 'vector'], 'file+index', '--outputs')
      : undefined,
    images: o.images,
    robots: o.robots,
    sitemap: o.sitemap,
    maxVersions: o.maxVersions,
    minPublishRatio: o.minPublishRatio,
    maxRetries: o.maxRetries,
    maxConsecutiveFailures: o.maxConsecutiveFailures,
    trapDuplicates: o.trapDuplicates,
    trapPatternUrls: o.trapPatternUrls,
    sessionParams: o.sessionParams,
    acceptors: o.acceptors,
    fetcher: o.fetcher,
    contentExtractor: o.contentExtractor,
    contentDedup: o.contentDedup,
  };
  return Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
}
