import { acceptorRegistry } from '../acceptors/acceptor-chain.js';
import { contentExtractorRegistry } from '../content/content-extractors.js';
import { createContentDedup } from '../dedup/content-dedup.js';
import type { ContentDedupFilter } from '../dedup/url-filter.js';
import type { Extractor } from '../fetch/extractor.js';
import { HttpExtractor } from '../fetch/http-extractor.js';
import { Registry } from '../registry.js';
import type { FetcherContext, NodeContext } from './components.js';

/** Fetchers (Extractors) by name, for the catalog field `fetcher`: `http` is undici with keep-alive. */
export const fetcherRegistry = new Registry<(ctx: FetcherContext) => Extractor>('--fetcher', {
  http: (ctx) => new HttpExtractor({ settings: ctx.settings, connectionsPerOrigin: ctx.connectionsPerOrigin }),
});

/**
 * Content dedup filters by name, for the catalog field `contentDedup` (empty = GF_CONTENT_DEDUP): `sha256` (the same
 * text) and `simhash` (near-same text), each on a LevelDB of its
 * own (system/dedup/content, system/dedup/content-simhash), so catalogs of both kinds crawl side by side.
 */
export const contentDedupRegistry = new Registry<(ctx: NodeContext) => Promise<ContentDedupFilter>>('--content-dedup', {
  sha256: (ctx) => createContentDedup('sha256', ctx.layout.contentDedupDirOf('sha256')),
  simhash: (ctx) =>
    createContentDedup('simhash', ctx.layout.contentDedupDirOf('simhash'), {
      maxDistance: ctx.settings.simhashDistance,
    }),
});

/**
 * The open registries a catalog names its components from. A library user adds an implementation with
 * `registries.fetcher.register('mine', factory)` and a catalog then picks it with `fetcher: 'mine'`.
 */
export const registries = {
  fetcher: fetcherRegistry,
  contentExtractor: contentExtractorRegistry,
  acceptors: acceptorRegistry,
  contentDedup: contentDedupRegistry,
} as const;
