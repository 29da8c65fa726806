import { NEXT, type Stage } from '../page.js';

/**
 * ContentExtractor (seed 002), on a worker thread: title, article text, link density, links, pictures. A document
 * is read by its parser at the import stage instead.
 */
export const extract: Stage = {
  name: 'extract',
  run: async (page, { deps: d, clock, counters }) => {
    if (page.document) return NEXT;
    const { body, contentType } = page.result;
    page.content = await clock.time('extract', d.extract(body, page.entry.url, contentType));
    // Bytes invalid in their charset were decoded as windows-1252 (or utf-8): counted, and the row says so.
    if (page.content.charsetFallback) {
      counters.charsetFallback();
      page.result.charset = page.content.charsetFallback;
    }
    return NEXT;
  },
};
