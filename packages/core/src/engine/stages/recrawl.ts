import { Outcome } from '../../outcomes.js';
import { heldSchedule, recrawlBounds, seedInterval } from '../flow/recrawl-interval.js';
import { notDue } from '../flow/recrawl-policy.js';
import { cachedRegex } from '../flow/regex-cache.js';
import { NEXT, type Stage } from '../page.js';
import { storedLinks } from './known-url.js';

/**
 * The recrawlable resolver (seed 002), first of the document pipeline: on an incremental run (`merge`), a page the
 * version holds that is not due — a catalog frequency rule says so, its sitemap `lastmod` is not after its fetch,
 * its adaptive recrawl schedule (the ledger's next-due time) has not come, or its `changefreq` period has not
 * passed — ends as REJECTED_PREMATURE:<frequency|lastmod|schedule|changefreq> before any request is made. It stays
 * as it was, and its stored links are followed, as for a 304. A page that is due carries its interval to its
 * ledger row (ledger-rows.ts), which halves it when the page changed and doubles it when not.
 */
export const recrawl: Stage = {
  name: 'recrawl',
  run: async (page, ctx) => {
    const d = ctx.deps;
    const previous = page.previous;
    if (d.known !== 'revisit' || !previous) return NEXT;
    const s = d.catalog.settings;
    const hint = s.recrawlSitemap ? ctx.sitemaps.hint(page.entry.url) : undefined;
    const bounds = recrawlBounds(s);
    const schedule = bounds.max > 0 && d.ledger ? heldSchedule(await d.ledger.get(previous.id)) : undefined;
    if (!hint && s.recrawlFrequencies.length === 0 && !schedule) return carry();
    const verdict = notDue(previous, hint, s.recrawlFrequencies, d.now?.() ?? Date.now(), cachedRegex, schedule);
    if (!verdict) return carry();
    page.completion.offer = await storedLinks(page, ctx);
    return { outcome: Outcome.REJECTED_PREMATURE, detail: verdict.detail, why: verdict.why };

    function carry(): typeof NEXT {
      if (bounds.max > 0) {
        const every = schedule?.every ?? seedInterval(hint, previous?.fetchedAt ?? '', bounds);
        page.completion.recrawl = { every, unchangedVisits: schedule?.unchangedVisits ?? 0, bounds };
      }
      return NEXT;
    }
  },
};
