import { ids } from '../../ids.js';
import { Outcome } from '../../outcomes.js';
import { feedVerdict } from '../flow/change-feed-gate.js';
import { heldSchedule, recrawlBounds, seedInterval } from '../flow/recrawl-interval.js';
import { notDue } from '../flow/recrawl-policy.js';
import { cachedRegex } from '../flow/regex-cache.js';
import { done, NEXT, type Stage } from '../page.js';
import { LEADS_ON, storedLinks } from './known-url.js';

/** Fates of a url without a page that a merge with change feeds asks again, named or not. */
const ASKED_AGAIN: ReadonlySet<string> = new Set([
  ...LEADS_ON,
  Outcome.REJECTED_ABANDONED,
  Outcome.REJECTED_ERROR,
  Outcome.REJECTED_UNREACHABLE,
  Outcome.REJECTED_BAD_STATUS,
]);

/**
 * The recrawlable resolver (seed 002), first of the document pipeline: on an incremental run (`merge`), a page the
 * version holds that is not due — a catalog frequency rule says so, its sitemap `lastmod` is not after its fetch,
 * its adaptive recrawl schedule (the ledger's next-due time) has not come, or its `changefreq` period has not
 * passed — ends as REJECTED_PREMATURE:<frequency|lastmod|schedule|changefreq> before any request is made. It stays
 * as it was, and its stored links are followed, as for a 304. A page that is due carries its interval to its
 * ledger row (ledger-rows.ts), which halves it when the page changed and doubles it when not.
 *
 * On a merge of a catalog with change feeds (deps `changeFeed`, flow/change-feed-gate.ts) a held page is fetched
 * only when a feed named it changed or its recrawl schedule says it is due; else REJECTED_PREMATURE:change-feed,
 * its stored links followed. A url a feed named deleted leaves the version without a request (the removal a 404
 * takes) and ends REJECTED_NOTFOUND:change-feed. The default feed (`sitemap`, when the catalog names none and its
 * site has a sitemap) judges held pages the same way.
 */
export const recrawl: Stage = {
  name: 'recrawl',
  run: async (page, ctx) => {
    const d = ctx.deps;
    const previous = page.previous;
    const feed = d.known === 'revisit' ? d.changeFeed : undefined;
    if (feed?.deleted(page.entry.url)) {
      if (previous && d.onGone) {
        await d.onGone(previous);
        page.completion.changed = true;
      }
      return done(Outcome.REJECTED_NOTFOUND, 'change-feed', 'named deleted by a change feed');
    }
    if (feed && !feed.byDefault && !previous && !feed.named(page.entry.url) && d.ledger) {
      // Known without a page (a 404, a page a feed deleted, a duplicate): asked again only when named, unless it
      // leads on (a redirect) or failed (the failure may be over). Not with the default sitemap feed: only a feed
      // named on purpose could say when such a url came back.
      const row = await d.ledger.get(ids.resource(d.catalog.id, d.version, page.hash));
      if (row && row.state !== 'queued' && row.state !== 'crawling' && !ASKED_AGAIN.has(row.outcome)) {
        return done(
          Outcome.REJECTED_PREMATURE,
          'change-feed',
          `not named by a change feed since the last run (last: ${row.outcome})`,
        );
      }
    }
    if (d.known !== 'revisit' || !previous) return NEXT;
    const s = d.catalog.settings;
    const hint = s.recrawlSitemap || feed?.sitemap ? ctx.sitemaps.hint(page.entry.url) : undefined;
    const bounds = recrawlBounds(s);
    const schedule = bounds.max > 0 && d.ledger ? heldSchedule(await d.ledger.get(previous.id)) : undefined;
    if (feed) {
      const verdict = feedVerdict(page.entry.url, previous, feed, hint, schedule, bounds, d.now?.() ?? Date.now());
      if (verdict.fetch) return carry();
      page.completion.offer = await storedLinks(page, ctx);
      return { outcome: Outcome.REJECTED_PREMATURE, detail: 'change-feed', why: verdict.why };
    }
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
