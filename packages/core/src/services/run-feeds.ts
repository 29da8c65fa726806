import type { ComponentFactory } from '../compose/component-factory.js';
import type { CrawlParts } from '../compose/run-assembly.js';
import { LocalCrawlCoordinator } from '../engine/crawl-coordinator.js';
import { openChangeFeeds, type RunChangeFeeds } from '../feeds/change-feeds.js';
import type { Catalog, CrawlAction, RunReport } from '../model.js';
import type { CrawlRequest } from '../runs/crawl-runner.js';

/**
 * The change feeds of one run (feeds/change-feeds.ts, docs/freshness.md#change-feeds): a merge of a catalog with
 * feeds (named, or the default sitemap feed when its site has one) fetches what they name; nothing otherwise. The
 * judge and the extra seeds go to the engine's deps.
 */
export async function openRunFeeds(
  f: ComponentFactory,
  parts: CrawlParts,
  run: { catalog: Catalog; version: number; action: CrawlAction; req: CrawlRequest },
): Promise<RunChangeFeeds | undefined> {
  const { catalog, version, action, req } = run;
  const feeds = await openChangeFeeds({
    catalog,
    version,
    action,
    blobs: f.blobs,
    fetchText: parts.fetchText,
    robots: parts.deps.robots,
    politeness: parts.deps.politeness,
    normalize: (u) => parts.deps.normalize(u),
    distributed: !(parts.deps.coordinator instanceof LocalCrawlCoordinator),
    shared: req.feedShare,
    reports: async () => (await f.database()).resources.listReports(catalog.id),
    // The start host's sitemaps read ahead of the engine, which takes this read (no second request).
    hasSitemap: async () =>
      ((await parts.peekSitemaps?.(siteOf(catalog.startUrl)).catch(() => undefined)) ?? []).length > 0,
    log: f.log.child({ component: 'change-feeds', catalogId: catalog.id, version }),
  });
  if (feeds?.changed) parts.deps.changeFeed = feeds.changed;
  if (feeds && feeds.seeds.length > 0) {
    parts.deps.seeds = [...(parts.deps.seeds ?? [catalog.startUrl]), ...feeds.seeds];
  }
  return feeds;
}

/** What the feeds said, in the report: the note's sentence and the `changeFeeds` fields. */
export function noteFeeds(report: RunReport, feeds: RunChangeFeeds | undefined): void {
  if (feeds?.summary) report.ending.note = `${report.ending.note ?? ''}; ${feeds.summary}`;
  if (feeds?.numbers) report.changeFeeds = feeds.numbers;
}

/** The url the engine reads a site's sitemaps from (engine/flow/sitemap-resolver.ts: the origin, then `/`). */
function siteOf(url: string): string {
  return `${/^https?:\/\/[^/?#]+/.exec(url)?.[0] ?? url}/`;
}
