import { Outcome } from '../outcomes.js';
import { URL_LEDGER } from './record-columns.js';
import { LEDGER_STATES, type LedgerQuery, type LedgerRow, type LedgerState } from './record-store.js';

/** The states a url ends in: a later `queued` (or `crawling`) row never replaces one of them. */
export const END_STATES: readonly LedgerState[] = ['done', 'failed', 'rejected', 'deleted'];

/**
 * The state each outcome ends a url in. Decided one by one (a new outcome fails to compile until it is placed):
 * - `done`: a response came and was handled — saved, or deliberately not saved (duplicate, unmodified, noindex,
 *   a redirect whose target is a url of its own, not markup), or a known page whose stored links were followed;
 * - `failed`: the fetch or the processing failed, or the run ended before the url was handled;
 * - `rejected`: refused before any request — an acceptor, robots.txt, the depth, the scope, a trap budget.
 */
const STATE_OF_OUTCOME: Record<Outcome, Exclude<LedgerState, 'queued' | 'crawling' | 'deleted'>> = {
  SAVED: 'done',
  REJECTED_KNOWN: 'done',
  REJECTED_DUPLICATE: 'done',
  REJECTED_UNMODIFIED: 'done',
  REJECTED_ROBOTS_META_NOINDEX: 'done',
  REJECTED_REDIRECT: 'done',
  REJECTED_REDIRECT_LOOP: 'done',
  REJECTED_NOT_MARKUP: 'done',
  REJECTED_NONCANONICAL: 'done',
  LISTED: 'done',
  // Not due on this incremental run: the page held stays as it was, no request was made.
  REJECTED_PREMATURE: 'done',
  REJECTED_IMPORT: 'failed',
  REJECTED_NOTFOUND: 'failed',
  REJECTED_BAD_STATUS: 'failed',
  REJECTED_UNREACHABLE: 'failed',
  REJECTED_TOO_LARGE: 'failed',
  REJECTED_ERROR: 'failed',
  REJECTED_UNRENDERED: 'failed',
  REJECTED_TOO_MANY_REDIRECTS: 'failed',
  REJECTED_ABANDONED: 'failed',
  // Pictures only; a url never ends with it, but if one did its bytes were fetched and were not usable.
  REJECTED_BAD_IMAGE: 'failed',
  REJECTED_FILTER: 'rejected',
  REJECTED_ROBOTS_TXT: 'rejected',
  REJECTED_TOO_DEEP: 'rejected',
  REJECTED_OUT_OF_SCOPE: 'rejected',
  REJECTED_ASSET: 'rejected',
  REJECTED_TRAP: 'rejected',
  // An orphan removed at the session's end (orphans: delete): dropped without a request. Not `deleted`, which
  // refuses the url in later runs: a link to it found again queues it as a new url.
  REJECTED_ORPHAN: 'rejected',
};

/**
 * The ledger state of a url whose last outcome is `outcome`. An outcome no built-in stage gives (a registered
 * acceptor's own name) is a refusal: `rejected`.
 */
export function ledgerState(outcome: string): LedgerState {
  return (STATE_OF_OUTCOME as Record<string, LedgerState>)[outcome] ?? 'rejected';
}

const ON_THE_WAY = new Set<LedgerState>(['queued', 'crawling']);
const ENDED = new Set<LedgerState>(END_STATES);

/**
 * Whether `next` replaces the row held for the same id:
 * - nothing but `deleted` replaces a `deleted` row (a deleted url stays deleted in its version);
 * - a `queued` or `crawling` row never replaces an end state (the url was put on the frontier again by a later run);
 * - a known page handled again without a request (REJECTED_KNOWN) never replaces an end state: the fate it had
 *   when it was fetched says more.
 */
export function ledgerReplaces(held: Pick<LedgerRow, 'state'>, next: Pick<LedgerRow, 'state' | 'outcome'>): boolean {
  if (held.state === 'deleted') return next.state === 'deleted';
  if (!ENDED.has(held.state)) return true;
  return !ON_THE_WAY.has(next.state) && next.outcome !== Outcome.REJECTED_KNOWN;
}

/**
 * The `foundAs` a row replacing `held` is written with: while the url is on the way in its run (`held` queued or
 * crawling), the form held stays (the first form that queued it in the run, even when a later row of the run does
 * not carry it); once `held` is an end state, a later run's row brings its own, or none.
 */
export function ledgerFoundAs(held: Pick<LedgerRow, 'state' | 'foundAs'>, next: Pick<LedgerRow, 'foundAs'>) {
  return ON_THE_WAY.has(held.state) && held.foundAs ? held.foundAs : (next.foundAs ?? null);
}

/** One row per id, as recording the rows one after the other under {@link ledgerReplaces} would leave them. */
export function collapseLedgerRows(rows: readonly LedgerRow[]): LedgerRow[] {
  if (rows.length < 2) return [...rows];
  const byId = new Map<string, LedgerRow>();
  for (const row of rows) {
    const held = byId.get(row.id);
    if (!held) byId.set(row.id, row);
    else if (ledgerReplaces(held, row)) {
      // The found-as form by ledgerFoundAs; a priority, change date and count the row leaves null, from the held row.
      const merged: LedgerRow = { ...row, foundAs: ledgerFoundAs(held, row) };
      const priority = row.priority ?? held.priority;
      if (priority != null) merged.priority = priority;
      const changed = ledgerChange(held, row);
      if (changed.changedAt != null) Object.assign(merged, changed);
      if (row.recrawlEvery == null && held.recrawlEvery != null) Object.assign(merged, recrawlOf(held));
      byId.set(row.id, merged);
    }
  }
  return [...byId.values()];
}

/**
 * A url's change date and count once `next` replaces `held` in one batch: a row with a change date of its own is one
 * more change (a row written again with the same date — a commit redone — is not), a row without one keeps the
 * held date and count. The store applies the same rule in SQL ({@link ledgerUpdateSet}).
 */
function ledgerChange(held: LedgerRow, next: LedgerRow): { changedAt: string | null; changeCount: number | null } {
  if (!next.changedAt) return { changedAt: held.changedAt ?? null, changeCount: held.changeCount ?? null };
  const again = held.changedAt === next.changedAt;
  return { changedAt: next.changedAt, changeCount: (held.changeCount ?? 0) + (again ? 0 : 1) };
}

/** The recrawl schedule of a row (kept together: a row without an interval keeps the held one's three). */
function recrawlOf(row: LedgerRow): Pick<LedgerRow, 'recrawlEvery' | 'dueAt' | 'unchangedVisits'> {
  return { recrawlEvery: row.recrawlEvery, dueAt: row.dueAt ?? null, unchangedVisits: row.unchangedVisits ?? null };
}

const list = (states: Iterable<LedgerState>) => [...states].map((s) => `'${s}'`).join(', ');

/**
 * {@link ledgerReplaces} as the condition of `ON CONFLICT (id) DO UPDATE … WHERE`, the same text for SQLite and
 * PostgreSQL (`t` is the table as the statement names it; `excluded` is the row offered).
 */
export function ledgerReplaceCondition(t = '"crawler_url"'): string {
  const ended = list(END_STATES);
  return (
    `NOT ((${t}."state" = 'deleted' AND excluded."state" <> 'deleted') ` +
    `OR (${t}."state" IN (${ended}) AND (excluded."state" IN (${list(ON_THE_WAY)}) ` +
    `OR excluded."outcome" = '${Outcome.REJECTED_KNOWN}')))`
  );
}

/** The row offered brings a change date the row held does not have: one more change. */
function newChange(t: string): string {
  return `excluded."changed_at" IS NOT NULL AND (${t}."changed_at" IS NULL OR excluded."changed_at" <> ${t}."changed_at")`;
}

/**
 * The SET list of the ledger's `ON CONFLICT (id) DO UPDATE`: every column from the row offered, but `found_as`,
 * which follows {@link ledgerFoundAs}, `priority` and `changed_at`, which a row without one leaves as held,
 * `change_count`, one more for a new change date, and the recrawl schedule (`recrawl_every`, `due_at`,
 * `unchanged_visits`), which a row without an interval leaves as held (the same text for SQLite and PostgreSQL).
 */
export function ledgerUpdateSet(t = '"crawler_url"'): string {
  const keep = `${t}."state" IN (${list(ON_THE_WAY)}) AND ${t}."found_as" IS NOT NULL`;
  return URL_LEDGER.columns
    .filter((c) => !URL_LEDGER.conflict.includes(c.column))
    .map((c) =>
      c.column === 'found_as'
        ? `"found_as" = CASE WHEN ${keep} THEN ${t}."found_as" ELSE excluded."found_as" END`
        : c.column === 'priority' || c.column === 'changed_at' || c.column === 'recrawl_every'
          ? `"${c.column}" = COALESCE(excluded."${c.column}", ${t}."${c.column}")`
          : c.column === 'due_at' || c.column === 'unchanged_visits'
            ? `"${c.column}" = CASE WHEN excluded."recrawl_every" IS NULL THEN ${t}."${c.column}" ELSE excluded."${c.column}" END`
            : c.column === 'change_count'
              ? `"change_count" = COALESCE(${t}."change_count", 0) + CASE WHEN ${newChange(t)} THEN 1 ELSE 0 END`
              : `"${c.column}" = excluded."${c.column}"`,
    )
    .join(', ');
}

/**
 * A row read back: a url without a priority has none, a url whose page never changed has no change date or count
 * (the columns' nulls are left out); one that changed has both, its count at least 1; a url never revisited with
 * the adaptive interval has no recrawl schedule.
 */
export function withoutNullPriority(row: LedgerRow): LedgerRow {
  const { priority, changedAt, changeCount, recrawlEvery, dueAt, unchangedVisits, ...rest } = row;
  return {
    ...rest,
    ...(priority != null ? { priority } : {}),
    ...(changedAt != null ? { changedAt, changeCount: Math.max(1, changeCount ?? 0) } : {}),
    ...(recrawlEvery != null ? { recrawlEvery, dueAt: dueAt ?? null, unchangedVisits: unchangedVisits ?? 0 } : {}),
  };
}

/** @default 100 */
export const DEFAULT_LEDGER_LIMIT = 100;
export const MAX_LEDGER_LIMIT = 1000;

/**
 * The WHERE clause and its values of a list query; `p(i)` writes the i-th placeholder (1-based), `contains(x)` the
 * test that the url holds the text `x` (case-sensitive, no wildcards: `instr`, `strpos`).
 */
export function ledgerFilter(
  q: LedgerQuery,
  p: (i: number) => string,
  contains: (placeholder: string) => string,
): { where: string; params: unknown[] } {
  const params: unknown[] = [q.catalogId, q.version];
  const parts = [`catalog_id = ${p(1)}`, `version = ${p(2)}`];
  if (q.state) {
    params.push(q.state);
    parts.push(`state = ${p(params.length)}`);
  }
  if (q.outcome) {
    params.push(q.outcome);
    parts.push(`outcome = ${p(params.length)}`);
  }
  if (q.text) {
    params.push(q.text);
    parts.push(contains(p(params.length)));
  }
  return { where: parts.join(' AND '), params };
}

/** limit in 1..1000 (default 100), offset ≥ 0. */
export function ledgerPage(q: LedgerQuery): { limit: number; offset: number } {
  const limit = Math.min(MAX_LEDGER_LIMIT, Math.max(1, Math.trunc(q.limit ?? DEFAULT_LEDGER_LIMIT)));
  const offset = Math.max(0, Math.trunc(q.offset ?? 0));
  return { limit, offset };
}

/** Every state, 0 where the version has none. */
export function zeroCounts(): Record<LedgerState, number> {
  return Object.fromEntries(LEDGER_STATES.map((s) => [s, 0])) as Record<LedgerState, number>;
}
