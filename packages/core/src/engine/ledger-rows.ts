import type { FrontierEntry } from '../frontier/frontier.js';
import { ids, urlHash } from '../ids.js';
import { Outcome } from '../outcomes.js';
import { ledgerState } from '../storage/ledger-rules.js';
import type { LedgerRow } from '../storage/record-store.js';
import { nextSchedule, scheduleColumns } from './flow/recrawl-interval.js';
import type { Completion } from './page.js';
import type { Refusal } from './queue-pipeline.js';

/**
 * The url ledger rows of one commit: a `queued` row per url put on the frontier (with its priority, when the
 * prioritizer scored it), a `rejected` row per link refused,
 * and a row per handled url with its outcome (completions last, so a url put and handled in one batch ends handled;
 * the store's replacement rule keeps any end state from a later `queued`). The id is the url's resource id.
 */
export function ledgerRows(
  catalogId: string,
  version: number,
  batch: readonly Completion[],
  puts: readonly FrontierEntry[],
  refused: readonly Refusal[],
  now = new Date().toISOString(),
): LedgerRow[] {
  const rows: LedgerRow[] = [];
  const row = (
    url: string,
    hash: string,
    fields: Omit<LedgerRow, 'id' | 'catalogId' | 'version' | 'url' | 'urlHash' | 'updatedAt'>,
  ): LedgerRow => ({
    id: ids.resource(catalogId, version, hash),
    catalogId,
    version,
    url,
    urlHash: hash,
    ...fields,
    updatedAt: now,
  });
  for (const e of puts) {
    rows.push(
      row(e.url, urlHash(e.url), {
        state: 'queued',
        outcome: '',
        detail: '',
        status: null,
        reason: '',
        referrer: e.referrer ?? null,
        depth: e.depth,
        redirects: e.redirectChain ?? [],
        foundAs: e.foundAs ?? null,
        priority: e.rank ?? null,
        fetchedAt: null,
      }),
    );
  }
  for (const r of refused) {
    rows.push(
      row(r.url, urlHash(r.url), {
        // Refused before any request, whatever name the acceptor gave its outcome.
        state: 'rejected',
        outcome: r.outcome,
        detail: r.acceptor,
        status: null,
        reason: r.reason,
        referrer: r.referrer ?? null,
        depth: r.depth ?? 0,
        redirects: [],
        foundAs: r.foundAs ?? null,
        fetchedAt: null,
      }),
    );
  }
  for (const c of batch) {
    if (!c.lease || !c.outcome) continue;
    const { url, depth, referrer, redirectChain, foundAs } = c.lease;
    rows.push(
      row(url, c.hash ?? urlHash(url), {
        state: ledgerState(c.outcome),
        outcome: c.outcome,
        detail: c.detail ?? '',
        status: c.status ?? null,
        reason: c.why ?? '',
        referrer: referrer ?? null,
        depth,
        redirects: redirectChain ?? [],
        foundAs: foundAs ?? null,
        fetchedAt: c.fetchedAt ?? null,
        // A change is dated by its fetch, so a commit redone after a crash does not count it twice.
        ...(c.changed ? { changedAt: c.fetchedAt ?? now, changeCount: 1 } : {}),
        ...recrawlColumns(c),
      }),
    );
  }
  return rows;
}

/**
 * The next recrawl schedule of a revisit that fetched the page (issue 27 item 3): its interval halved when the page
 * was rewritten because it changed, doubled when it was found unchanged (a 304 or the same article); nothing for any
 * other end (a failure, a refusal), whose row keeps the schedule held.
 */
function recrawlColumns(c: Completion): Partial<LedgerRow> {
  const r = c.recrawl;
  if (!r || !c.fetchedAt) return {};
  const changed = c.outcome === Outcome.SAVED && c.changed === true;
  if (!changed && c.outcome !== Outcome.REJECTED_UNMODIFIED) return {};
  return scheduleColumns(nextSchedule(r.every, r.unchangedVisits, changed, c.fetchedAt, r.bounds));
}
