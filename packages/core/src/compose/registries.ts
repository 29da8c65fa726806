import { acceptorRegistry } from '../acceptors/acceptor-chain.js';
import { contentExtractorRegistry } from '../content/content-extractors.js';
import { createContentDedup } from '../dedup/content-dedup.js';
import type { ContentDedupFilter } from '../dedup/url-filter.js';
import { AdaptiveExtractor } from '../fetch/adaptive-extractor.js';
import { BrowserExtractor } from '../fetch/browser-extractor.js';
import type { Extractor } from '../fetch/extractor.js';
import { HttpExtractor } from '../fetch/http-extractor.js';
import type { Pacer } from '../fetch/politeness.js';
import type { RenderMemory, RenderPolicy } from '../fetch/render-memory.js';
import { createRenderingDetector } from '../fetch/rendering-detector.js';
import { Registry } from '../registry.js';
import type { FetcherContext, NodeContext, RunContext } from './components.js';

/** Fetchers (Extractors) by name, for the catalog field `fetcher`: `http` is undici with keep-alive. */
export const fetcherRegistry = new Registry<(ctx: FetcherContext) => Extractor>('--fetcher', {
  http: (ctx) =>
    new HttpExtractor({
      settings: ctx.settings,
      connectionsPerOrigin: ctx.connectionsPerOrigin,
      lookup: ctx.dnsCache?.lookup,
    }),
});

/** What an extractor factory gets: the run, and the fetcher of the run (which the extractor it builds owns). */
export interface ExtractorContext extends RunContext {
  readonly http: Extractor;
  /** The node's render memory (built on first call). Absent outside the composition: nothing is remembered. */
  readonly renderMemory?: (() => RenderMemory) | undefined;
  /** The run's politeness for a rendered page's own requests. Absent: they are not spaced. */
  readonly pacer?: Pacer | undefined;
}

/** When the adaptive extractor takes the render memory's word (GF_RENDER_MEMORY_RENDERS, _STATIC, _RECHECK). */
export function renderPolicyOf(ctx: NodeContext): RenderPolicy {
  return {
    renderAfter: ctx.settings.renderMemoryRenders,
    staticAfter: ctx.settings.renderMemoryStatic,
    recheckEvery: ctx.settings.renderMemoryRecheck,
  };
}

/** The RenderingDetector with the node's thresholds (GF_RENDER_MIN_TEXT_CHARS, GF_RENDER_MAX_SCRIPT_SHARE). */
export function renderingDetectorOf(ctx: NodeContext) {
  return createRenderingDetector({
    minTextChars: ctx.settings.renderMinTextChars,
    maxScriptShare: ctx.settings.renderMaxScriptShare,
  });
}

/** The browser side of a run: Chromium at GF_CHROMIUM_PATH with the pool and wait settings, the catalog's hosts. */
export function browserExtractorOf(ctx: ExtractorContext): BrowserExtractor {
  const s = ctx.settings;
  return new BrowserExtractor(ctx.http, {
    executablePath: s.chromiumPath,
    maxPages: s.browserPages,
    recycleAfter: s.browserRecyclePages,
    maxMemoryMb: s.browserMaxMb,
    navigationTimeoutMs: s.renderTimeoutMs,
    idleTimeoutMs: s.renderIdleMs,
    settleTimeoutMs: s.renderSettleMs,
    maxScrolls: s.renderMaxScrolls,
    minTextChars: s.renderMinTextChars,
    detector: renderingDetectorOf(ctx),
    allowHosts: ctx.catalog.settings.renderHosts,
    pacer: ctx.pacer,
    userAgent: s.userAgent,
    log: ctx.log.child({ component: 'browser' }),
  });
}

/**
 * Extractors by name, for the catalog field `extractor`: how the run's fetcher is used for pages. `http` is the
 * fetcher alone; `browser` renders every html page; `adaptive` (the default) renders only what the
 * RenderingDetector calls a shell, steered by the node's render memory.
 */
export const extractorRegistry = new Registry<(ctx: ExtractorContext) => Extractor>('--extractor', {
  http: (ctx) => ctx.http,
  browser: (ctx) => browserExtractorOf(ctx),
  adaptive: (ctx) =>
    new AdaptiveExtractor(ctx.http, browserExtractorOf(ctx), renderingDetectorOf(ctx), {
      memory: ctx.renderMemory?.(),
      policy: renderPolicyOf(ctx),
      log: ctx.log.child({ component: 'adaptive' }),
    }),
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
  extractor: extractorRegistry,
  contentExtractor: contentExtractorRegistry,
  acceptors: acceptorRegistry,
  contentDedup: contentDedupRegistry,
} as const;
