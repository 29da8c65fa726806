import type { Logger } from 'pino';
import type { ContentDedupFilter, ExistingUrlPathFilter } from '../dedup/url-filter.js';
import type { CrawledPage } from '../outputs/output-channel.js';
import { Counters } from './counters.js';
import type { CrawlEngineDeps } from './engine-deps.js';
import { LlmsTxtIndex } from './flow/llms-txt.js';
import type { PipelineContext, PipelineDeps } from './page.js';
import { QueuePipeline } from './queue-pipeline.js';
import { StageClock } from './stage-clock.js';

/** The readers a dry run shares with a crawl: everything the stages read, none of what they write. */
export type DryReaders = Omit<
  PipelineDeps,
  'urlFilter' | 'inflight' | 'outputs' | 'contentDedup' | 'onReplace' | 'onGone' | 'changes' | 'consumers' | 'events'
> &
  Pick<CrawlEngineDeps, 'acceptors' | 'normalize'> & { readonly contentDedup: ContentDedupFilter };

/** What a dry run would have written. */
export interface DryWrites {
  /** The page the output channels would have been given (its resource row, text, pictures), if it got that far. */
  page: CrawledPage | undefined;
}

/**
 * A dry run of the document pipeline (`test-url`): the crawl's own stages, with every writer swapped for one that
 * writes nothing. The url is judged as the first visit of it in the version — its own record is set aside, the
 * version's other pages are not (content dedup compares with them) — with no write-ahead log, no committer, no
 * ledger or frontier writes, no consumers or events, no picture fetched, nothing published; the output channels
 * record what they are given. Content dedup only looks up (`ContentDedupFilter.check`): it records nothing.
 */
export function dryPipeline(readers: DryReaders, log: Logger): { ctx: PipelineContext; writes: DryWrites } {
  const writes: DryWrites = { page: undefined };
  const { acceptors, normalize, contentDedup, ...rest } = readers;
  const deps: PipelineDeps = {
    ...rest,
    urlFilter: FIRST_VISIT,
    contentDedup: checkOnly(contentDedup),
    inflight: { has: () => false, load: async () => undefined, save: async () => undefined },
    outputs: {
      deferredLayers: [],
      write: async (page) => {
        writes.page = page;
      },
    },
  };
  const ctx: PipelineContext = {
    deps,
    log,
    counters: new Counters(),
    clock: new StageClock(),
    queue: new QueuePipeline({ acceptors, normalize, catalog: readers.catalog }),
    sitemaps: { hint: () => undefined },
    llmsTxt: new LlmsTxtIndex(deps, log),
    images: { forPage: async () => [], forget: () => undefined },
    owed: { expect: () => undefined, forget: () => undefined },
    limit: { reached: () => false, reserve: async () => true, release: () => undefined },
  };
  return { ctx, writes };
}

/** A url filter that knows no url: the url tested is met for the first time. */
const FIRST_VISIT: ExistingUrlPathFilter = {
  has: async () => false,
  mark: async () => undefined,
  markAll: async () => undefined,
  forgetAll: async () => undefined,
  clearVersion: async () => undefined,
  close: async () => undefined,
};

/**
 * Content dedup that answers as the crawl's does without keeping a trace: its check-and-record only checks, so a
 * crawl of the same version at that moment never sees the dry run's page.
 */
function checkOnly(dedup: ContentDedupFilter): ContentDedupFilter {
  return {
    kind: dedup.kind,
    fingerprint: (text) => dedup.fingerprint(text),
    checkAndRecord: (catalogId, version, text) => dedup.check(catalogId, version, text),
    check: (catalogId, version, text) => dedup.check(catalogId, version, text),
    forget: async () => undefined,
    clearVersion: async () => undefined,
    close: async () => undefined,
  };
}
