import { eraseVersions } from '../admin/version-eraser.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import type { CrawlParts } from '../compose/run-assembly.js';
import type { CrawlResult } from '../engine/crawl-engine.js';
import { reportOf } from '../error-table.js';
import type { Catalog, CrawlAction, LayerGap, PublishWithheld, RunReport } from '../model.js';

/** The version serving now and its pages, before the run changes anything. */
export async function servedPages(
  f: ComponentFactory,
  catalog: Catalog,
): Promise<{ version: number; pages: number } | undefined> {
  if (catalog.searchVersion < 0) return undefined;
  const db = await f.database();
  const counted = await db.resources.count(catalog.id, catalog.searchVersion);
  return { version: catalog.searchVersion, pages: counted.resources };
}

/**
 * Whether a run that ended normally earned its publish (docs/reliability.md, "Publishing"): a store that refused a
 * write, a site that did not answer, a robots.txt that could not be read (RFC 9309: disallowed, so nothing was
 * fetched), a site that answered only 5xx or 429, a run that saved nothing (an update or merge of a site that
 * answered has simply found nothing changed), and a version far smaller than the one serving all keep it unpublished.
 */
export async function withheldPublish(
  f: ComponentFactory,
  parts: CrawlParts,
  catalog: Catalog,
  version: number,
  action: CrawlAction,
  result: CrawlResult,
  served: { version: number; pages: number } | undefined,
  force: boolean,
): Promise<PublishWithheld | undefined> {
  const failure = parts.storage.failure;
  if (failure !== undefined) {
    return { cause: 'store-failed', line: `${reportOf(failure).line}; nothing was published` };
  }
  if (!result.published) return undefined;
  const saved = result.counters.saved;
  const site = siteWithheld(parts, catalog, saved);
  if (site) return site;
  if (saved === 0 && action !== 'update' && action !== 'merge') {
    return { cause: 'nothing-saved', line: 'nothing was saved, so nothing was published' };
  }
  const ratio = catalog.settings.minPublishRatio;
  if (served && !force && served.pages > 0 && ratio > 0) {
    const pages = (await (await f.database()).resources.count(catalog.id, version)).resources;
    if (pages < ratio * served.pages) {
      return {
        cause: 'too-few-pages',
        line:
          `kept v${served.version} serving: v${version} holds ${pages} pages, under ${ratio} × the ${served.pages} of v${served.version} (minPublishRatio)` +
          ' — check the site, or publish it anyway with --force-publish',
        pages,
        servedVersion: served.version,
        servedPages: served.pages,
        minPublishRatio: ratio,
      };
    }
  }
  return undefined;
}

/**
 * Whether the site answered the run well enough to judge the site by it: its robots.txt answered (not 5xx or 429),
 * and it did not answer only failures while nothing was saved. Withholds the publish, and the orphan step.
 */
export function siteWithheld(
  parts: Pick<CrawlParts, 'deps' | 'site'>,
  catalog: Catalog,
  saved: number,
): PublishWithheld | undefined {
  const start = catalog.startUrl;
  const origin = `${new URL(start).origin}/`;
  const robots = parts.deps.robots ? parts.site.robots(start) : undefined;
  if (robots && 'failure' in robots) {
    return {
      cause: 'site-unreachable',
      line: `the site did not answer: ${robots.failure} at ${origin} — check that it is up and --url is right, then run again`,
    };
  }
  if (robots && 'status' in robots && (robots.status >= 500 || robots.status === 429)) {
    return {
      cause: 'robots-unreadable',
      line: `robots.txt answered ${robots.status}: RFC 9309 says to treat the site as disallowed; retry later`,
    };
  }
  const answers = parts.site.origin(start);
  if (saved === 0 && (answers?.answers ?? 0) === 0 && answers?.failure) {
    return {
      cause: 'site-unreachable',
      line: `the site did not answer: ${answers.failure.what} at ${answers.failure.url === start ? start : origin} — check that it is up and --url is right, then run again`,
    };
  }
  if (saved === 0 && answers && answers.answers > 0 && answers.failing === answers.answers) {
    const statuses = Object.entries(answers.statuses)
      .map(([status, n]) => `${status} × ${n}`)
      .join(', ');
    return {
      cause: 'site-failing',
      line: `the site answered only errors (${statuses}); nothing was published — retry later`,
    };
  }
  return undefined;
}

/**
 * A withheld version's index and vector entries leave the stores the served version is searched in, so search
 * ranks exactly as before (bm25's statistics count every document of the catalog's index). Its pages and records
 * stay: `replay --layers index+vector --version n` rebuilds them.
 */
export async function unrank(f: ComponentFactory, catalog: Catalog, version: number, report: RunReport): Promise<void> {
  const layers = (['vector', 'index'] as const).filter((l) => catalog.settings.outputs.includes(l));
  const results = await eraseVersions(f, catalog, [version], layers, false);
  const failed = results.find((r) => r.error);
  report.ending.note = failed
    ? `${report.ending.note ?? ''}; its ${failed.layer} entries could not be removed (${failed.error}): search may rank differently until they are`
    : `${report.ending.note ?? ''}; its index and vector entries were removed so search ranks as before (its pages stay stored: replay --version ${version} rebuilds them)`;
}

/** The index and vector layers hold a page for every page saved, or the report says why not. */
export function layerGaps(catalog: Catalog, report: RunReport): LayerGap[] {
  const gaps: LayerGap[] = [];
  const saved = report.produced.saved;
  const layers: Array<['index' | 'vector', number]> = [
    ['index', report.produced.indexed],
    ['vector', report.produced.vectored],
  ];
  for (const [layer, held] of layers) {
    if (!catalog.settings.outputs.includes(layer) || held === saved) continue;
    const stats = report.outputs[layer];
    const why =
      stats && stats.failed > 0
        ? `${stats.failed} writes failed: ${stats.lastError ?? 'see the log'}; fill it with greenfinger replay --id ${catalog.id} --layers ${layer}`
        : `cause unknown; fill it with greenfinger replay --id ${catalog.id} --layers ${layer}`;
    gaps.push({ layer, saved, held, why });
  }
  return gaps;
}
