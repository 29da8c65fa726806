import { storedResponseOf } from '../../fetch/stored-response.js';
import { ids } from '../../ids.js';
import { keys } from '../../layout.js';
import type { ResourceRow } from '../../model.js';
import { Outcome } from '../../outcomes.js';
import { done, type PageInProgress, type PipelineContext, type Stage } from '../page.js';

/**
 * CompositeOutputChannel (seed 002's output): file ─► index ─► vector. The file failing is the page failing (its
 * StageError names the layer); the others are counted. The page is SAVED.
 */
export const output: Stage = {
  name: 'output',
  run: async (page, ctx) => {
    const { deps: d, clock, owed } = ctx;
    const { result, resourceId } = page;
    page.resource ??= resourceRow(page, ctx);
    const resource = page.resource;
    owed.expect(resourceId, d.outputs.deferredLayers);
    page.owesWrites = true;
    if (page.previous && d.onReplace) await d.onReplace(page.previous);
    const { images } = page;
    await clock.time(
      'output',
      d.outputs.write({
        catalog: d.catalog,
        version: d.version,
        resource,
        html: result.body,
        text: page.content.text,
        // The page's .md: the site's own Markdown; else, with the catalog's markdownFiles, the extraction worker's
        // conversion (a document's, or a too long article's, is its text); else none: made from the html when read.
        ...(page.siteMarkdown !== undefined
          ? {
              markdown: page.siteMarkdown.text,
              markdownSource: 'site' as const,
              markdownOrigin: { url: page.siteMarkdown.url, from: page.siteMarkdown.from },
            }
          : d.catalog.settings.markdownFiles
            ? { markdown: page.content.markdown ?? '', markdownSource: 'html' as const }
            : {}),
        images,
      }),
    );
    const c = page.completion;
    c.resource = resource;
    c.images = images.filter((i) => i.bytes).map((i) => i.row);
    c.newImages = c.images.length;
    c.links = images.map((i) => ({
      id: ids.resourceImage(d.catalog.id, d.version, resourceId, i.row.id),
      catalogId: d.catalog.id,
      version: d.version,
      resourceId,
      imageId: i.row.id,
      alt: i.alt,
      surroundingText: i.surroundingText,
    }));
    if (page.document) ctx.counters.note(`documents:${page.document.parser}`, page.entry.url);
    // The run's change set: a page the version did not hold is added; one rewritten is changed, with its diff.
    d.changes?.saved(page.entry.url, page.previous ? (page.textDiff ?? '') : undefined);
    c.changed = true;
    return done(Outcome.SAVED);
  },
};

/** The resource row of a page about to be saved; a document keeps its original bytes under its own extension. */
export function resourceRow(page: PageInProgress, { deps: d }: Pick<PipelineContext, 'deps'>): ResourceRow {
  const { entry, result, content, resourceId } = page;
  return {
    id: resourceId,
    catalogId: d.catalog.id,
    version: d.version,
    url: entry.url,
    urlHash: page.hash,
    title: content.title || entry.url,
    contentType: result.contentType,
    charset: result.charset,
    status: result.status,
    depth: entry.depth,
    contentHash: page.textHash,
    etag: result.etag,
    lastModified: result.lastModified,
    htmlPath: page.document
      ? keys.pageOriginal(d.catalog.id, d.version, resourceId, page.document.extension)
      : keys.pageHtml(d.catalog.id, d.version, resourceId),
    textPath: keys.pageText(d.catalog.id, d.version, resourceId),
    htmlBytes: result.body.length,
    textChars: content.text.length,
    linkDensity: content.linkDensity,
    fetchedAt: new Date().toISOString(),
    response: storedResponseOf(result.finalUrl || entry.url, result),
  };
}
