import { Outcome } from '../../outcomes.js';
import { notDue } from '../flow/recrawl-policy.js';
import { cachedRegex } from '../flow/regex-cache.js';
import { NEXT, type Stage } from '../page.js';
import { storedLinks } from './known-url.js';

/**
 * The recrawlable resolver (seed 002), first of the document pipeline: on an incremental run (`merge`), a page the
 * version holds that is not due — its sitemap `lastmod` is not after its fetch, its `changefreq` period has not
 * passed, or a catalog frequency rule says so — ends as REJECTED_PREMATURE:<lastmod|changefreq|frequency> before
 * any request is made. It stays as it was, and its stored links are followed, as for a 304.
 */
export const recrawl: Stage = {
  name: 'recrawl',
  run: async (page, ctx) => {
    const d = ctx.deps;
    if (d.known !== 'revisit' || !page.previous) return NEXT;
    const s = d.catalog.settings;
    const hint = s.recrawlSitemap ? ctx.sitemaps.hint(page.entry.url) : undefined;
    if (!hint && s.recrawlFrequencies.length === 0) return NEXT;
    const verdict = notDue(page.previous, hint, s.recrawlFrequencies, Date.now(), cachedRegex);
    if (!verdict) return NEXT;
    page.completion.offer = await storedLinks(page, ctx);
    return { outcome: Outcome.REJECTED_PREMATURE, detail: verdict.detail, why: verdict.why };
  },
};
