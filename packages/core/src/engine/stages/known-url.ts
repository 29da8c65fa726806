import { isPageType } from '../../fetch/content-type.js';
import type { CrawlFrontier } from '../../frontier/frontier.js';
import { ids } from '../../ids.js';
import type { CrawlAction } from '../../model.js';
import { Outcome } from '../../outcomes.js';
import { isFolderUrl } from '../../url/file-url.js';
import type { KnownUrlPolicy } from '../engine-deps.js';
import {
  done,
  HEADER_NOFOLLOW,
  NEXT,
  type PageInProgress,
  type PipelineContext,
  type PipelineDeps,
  type Stage,
} from '../page.js';
import type { Offer } from '../queue-pipeline.js';
import { followed, referringPage } from './links.js';

/**
 * Known urls that hold no page but lead on: a redirect (to its target), a noncanonical copy (to its canonical url), a
 * noindex page (to its links). They are fetched again, since nothing stored says where they lead, and what they lead
 * to must be reached by this session too (or it would be an orphan of it).
 */
export const LEADS_ON: ReadonlySet<string> = new Set([
  Outcome.REJECTED_REDIRECT,
  Outcome.REJECTED_NONCANONICAL,
  Outcome.REJECTED_ROBOTS_META_NOINDEX,
]);

/**
 * ExistingUrlPathFilter (seed 002): a url this version already holds is not fetched again; its stored links are
 * followed (`merge` revisits it instead). A known url without a page is REJECTED_KNOWN, unless it leads on (LEADS_ON,
 * folders) or the run is incremental (`merge` asks again).
 */
export const knownUrl: Stage = {
  name: 'known-url',
  run: async (page, ctx) => {
    const d = ctx.deps;
    if (!(await d.urlFilter.has(d.catalog.id, d.version, page.hash))) return NEXT;
    page.previous = await d.records.findResourceByUrlHash(d.catalog.id, d.version, page.hash);
    if (d.known === 'revisit' && page.previous) return NEXT;
    // A folder of a file-system source holds no resource: it is listed again, the one way its new files are found.
    if (!page.previous && isFolderUrl(page.entry.url)) return NEXT;
    if (page.previous) page.completion.offer = await storedLinks(page, ctx);
    // An incremental run (merge) asks again for every known url that holds no page: a 404 may have come back.
    else if (d.known === 'revisit' || (await leadsOn(page, d))) return NEXT;
    return done(Outcome.REJECTED_KNOWN);
  },
};

/** The frontier journal key that keeps the known-url policy of the run writing the version. */
const POLICY_KEY = 'run:known-urls';

/**
 * The known-url policy of a run: `merge` revisits what the version holds, the other verbs follow its stored links. A
 * `resume` keeps the policy of the run it continues (kept in the frontier's journal as that run starts), so a merge
 * stopped or killed half-way still revisits the pages it had not reached.
 */
export async function knownUrlPolicy(
  frontier: Pick<CrawlFrontier, 'journal' | 'commit'>,
  action: CrawlAction,
): Promise<KnownUrlPolicy> {
  if (action === 'resume') {
    for await (const [, value] of frontier.journal(POLICY_KEY)) if (value === 'revisit') return 'revisit';
    return 'follow-stored';
  }
  const known: KnownUrlPolicy = action === 'merge' ? 'revisit' : 'follow-stored';
  await frontier.commit({
    puts: [],
    acks: [],
    journal: known === 'revisit' ? { put: [[POLICY_KEY, known]] } : { del: [POLICY_KEY] },
  });
  return known;
}

async function leadsOn(page: PageInProgress, d: PipelineDeps): Promise<boolean> {
  const row = await d.ledger?.get(ids.resource(d.catalog.id, d.version, page.hash));
  return row !== undefined && LEADS_ON.has(row.outcome);
}

/** The page held was saved, or last seen, with a header asking not to follow its links. */
async function heldNofollow(page: PageInProgress, d: PipelineDeps): Promise<boolean> {
  if (!d.ledger || !page.previous) return false;
  const row = await d.ledger.get(page.previous.id);
  return row?.reason.includes(HEADER_NOFOLLOW) === true;
}

/**
 * The links of a page this version already holds, read from its stored html (a document's from its stored bytes,
 * by its parser): no request. None when its header asked for nofollow, now or when it was last seen.
 */
export async function storedLinks(
  page: PageInProgress,
  { deps: d, clock, queue }: Pick<PipelineContext, 'deps' | 'clock' | 'queue'>,
): Promise<Offer | undefined> {
  const { previous, entry } = page;
  if (!previous) return undefined;
  if (page.headerNofollow || (await heldNofollow(page, d))) {
    page.headerNofollow = true;
    return undefined;
  }
  const html = await d.blobs.get(previous.htmlPath);
  if (!html) return undefined;
  if (!isPageType(previous.contentType)) {
    const kind = d.documentKind?.(previous.contentType, previous.url);
    if (!kind || !d.parseDocument || !d.catalog.settings.postImportLinks) return undefined;
    const doc = await clock.time('import', d.parseDocument(html, entry.url, previous.contentType));
    return queue.offer(followed(doc.links), entry.depth + 1, entry.url, 0, true, undefined, referringPage(doc));
  }
  const content = await clock.time('extract', d.extract(html, entry.url, previous.contentType));
  if (content.robots.nofollow) return undefined;
  return queue.offer(followed(content.links), entry.depth + 1, entry.url, 0, true, undefined, referringPage(content));
}
