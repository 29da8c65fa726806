import type { Catalog, CrawlAction, RunReport } from '../model.js';
import type { ChannelStats } from '../outputs/composite-output-channel.js';
import type { CrawlResult, EndReason } from './run-result.js';

const NOTES: Record<EndReason, string> = {
  'frontier-drained': 'every reachable url was handled; the version is published',
  'max-pages': 'the page limit was reached; the version is published (a limit is a normal end)',
  duration: 'the time limit was reached; the version is published (a limit is a normal end)',
  interrupted: 'stopped from outside; nothing was published and the frontier is kept — run resume to continue',
  'consecutive-failures': 'too many failures in a row; nothing was published — check the site, then resume',
  error: 'an internal error stopped the crawl; nothing was published — see the log, then resume',
};

/** `20261130T160412Z`: sortable, safe in a file name. */
export function reportStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

export function buildRunReport(input: {
  node: string;
  catalog: Catalog;
  version: number;
  action: CrawlAction;
  refresh: boolean;
  result: CrawlResult;
  outputs: Record<string, ChannelStats>;
  embedding?: RunReport['embedding'];
}): RunReport {
  const { result } = input;
  const c = result.counters;
  return {
    node: input.node,
    catalogId: input.catalog.id,
    catalog: input.catalog.name,
    url: input.catalog.url,
    startUrl: input.catalog.startUrl,
    version: input.version,
    action: input.action,
    refresh: input.refresh,
    startedAt: result.startedAt.toISOString(),
    endedAt: result.endedAt.toISOString(),
    elapsedMs: result.endedAt.getTime() - result.startedAt.getTime(),
    produced: { saved: c.saved, images: c.images, indexed: c.indexed, vectored: c.vectored },
    urls: {
      dispatched: c.dispatched,
      handled: c.handled,
      outstanding: result.outstanding,
      alreadySeen: c.alreadySeen,
      filtered: c.filtered,
      unreachable: c.unreachable,
      duplicateContent: c.duplicateContent,
      failures: c.failures,
      abandoned: c.abandoned,
      unmodified: c.unmodified,
      redirected: c.redirected,
    },
    rejected: c.rejected,
    examples: c.examples,
    pictures: { kept: c.images, rejected: c.pictures.rejected, examples: c.pictures.examples },
    content: { charsetFallbacks: c.charsetFallbacks },
    ...(Object.keys(c.rendered).length > 0 ? { rendered: renderedOf(c.rendered) } : {}),
    ...(Object.keys(c.noted).length > 0 ? { flow: { noted: c.noted, examples: c.notedExamples } } : {}),
    outputs: input.outputs,
    stages: result.stages,
    ...(input.embedding ? { embedding: input.embedding } : {}),
    ending: {
      reason: result.reason,
      fullyCrawled: result.fullyCrawled,
      published: result.published,
      note: result.error ? `${NOTES[result.reason]}: ${result.error}` : NOTES[result.reason],
    },
  };
}

/** Pages the browser rendered: how many, and how many for each reason. */
function renderedOf(byReason: Record<string, number>): { pages: number; reasons: Record<string, number> } {
  return { pages: Object.values(byReason).reduce((a, b) => a + b, 0), reasons: { ...byReason } };
}
