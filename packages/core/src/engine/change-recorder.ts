import type { CrawlFrontier } from '../frontier/frontier.js';

/** A page whose article changed, with a short text diff of it (`- removed line`, `+ added line`). */
export interface ChangedUrl {
  url: string;
  diff: string;
}

/** What changed in a catalog's collection: urls added, pages changed, urls removed (issue 27, the change log). */
export interface ChangeSet {
  added: string[];
  changed: ChangedUrl[];
  removed: string[];
}

/** What of the run's frontier the change set is journaled on. */
export type JournalFrontier = Pick<CrawlFrontier, 'journal' | 'commit'>;

/** One url's last word in a run's change set. */
interface RecordedChange {
  kind: 'added' | 'changed' | 'removed';
  diff?: string;
}

/** The frontier journal's prefix of a run's change set (`j:change:{url}`). */
export const CHANGE_JOURNAL_PREFIX = 'change:';

/** An empty change set. */
export function emptyChangeSet(): ChangeSet {
  return { added: [], changed: [], removed: [] };
}

/**
 * The change set of one run as its pages are handled: a page saved with no page before it is added, a page
 * rewritten because its article changed is changed (its diff made before the new text replaced the old), a held page
 * removed (gone when revisited, an orphan deleted) is removed. A url told twice keeps its last word, and a url added
 * then removed by the same run is no change at all. Kept in memory (about 100 bytes a url); the run that publishes
 * writes it to the change log (services/change-service.ts).
 *
 * Journaled too (write-ahead): each url's last word waits for {@link flushJournal}, which writes it to the run's
 * journal (the frontier's `j:change:{url}`) before the records that make it true: the committer flushes before it
 * writes a batch's rows (so a page whose new text is in the records, and which a resume will therefore find
 * unmodified, has its change journaled), and a page removal flushes before it erases. A run resumed after a crash
 * (kill -9) {@link restore}s the whole change set of the run it continues, not only what it does itself.
 */
export class ChangeRecorder {
  readonly #urls = new Map<string, RecordedChange>();
  /** Urls whose last word is not journaled yet. */
  readonly #unjournaled = new Set<string>();
  #sink: ((entries: Array<[string, string]>) => Promise<unknown>) | undefined;

  /**
   * Journal this run's change set on its frontier: a resumed run takes back the set of the run it continues; any
   * other run drops what an earlier run of the version left there (the journal outlives a run). Without this the
   * set lives in memory only.
   */
  async openJournal(frontier: JournalFrontier, resume: boolean): Promise<void> {
    let stale: string[] = [];
    for await (const [key, value] of frontier.journal(CHANGE_JOURNAL_PREFIX)) {
      if (resume) this.restore(key, value);
      else stale.push(key);
      if (stale.length >= 1000) {
        await frontier.commit({ puts: [], acks: [], journal: { del: stale } });
        stale = [];
      }
    }
    if (stale.length > 0) await frontier.commit({ puts: [], acks: [], journal: { del: stale } });
    this.#sink = (entries) => frontier.commit({ puts: [], acks: [], journal: { put: entries } });
  }

  /** Write the words told since the last flush to the journal; a write that fails throws (the run's failure). */
  async flushJournal(): Promise<void> {
    if (!this.#sink || this.#unjournaled.size === 0) return;
    await this.#sink(this.takeJournal());
  }

  /** A page saved: added when the version held no page for its url, else changed with its diff. */
  saved(url: string, diff: string | undefined): void {
    const before = this.#urls.get(url)?.kind;
    if (before === 'added') return;
    if (before === 'removed') this.#urls.set(url, { kind: 'changed', diff: diff ?? '(removed, then saved again)' });
    else if (diff === undefined) this.#urls.set(url, { kind: 'added' });
    else this.#urls.set(url, { kind: 'changed', diff });
    this.#unjournaled.add(url);
  }

  /** A page the version held was removed from every layer. */
  removed(url: string): void {
    if (this.#urls.get(url)?.kind === 'added') this.#urls.delete(url);
    else this.#urls.set(url, { kind: 'removed' });
    this.#unjournaled.add(url);
  }

  /** Urls whose last word waits for the journal. */
  get unjournaled(): number {
    return this.#unjournaled.size;
  }

  /**
   * The journal entries of the words told since the last call (`change:{url}` → `{"kind","diff"}`, or `none` for a
   * url added then removed), for the committer's next frontier batch.
   */
  takeJournal(): Array<[string, string]> {
    const entries: Array<[string, string]> = [];
    for (const url of this.#unjournaled) {
      const c = this.#urls.get(url);
      entries.push([`${CHANGE_JOURNAL_PREFIX}${url}`, c ? JSON.stringify(c) : 'none']);
    }
    this.#unjournaled.clear();
    return entries;
  }

  /** A journal entry of the run this one continues (resume), taken back as that run told it. */
  restore(key: string, value: string): void {
    if (!key.startsWith(CHANGE_JOURNAL_PREFIX)) return;
    const url = key.slice(CHANGE_JOURNAL_PREFIX.length);
    if (value === 'none') {
      this.#urls.delete(url);
      return;
    }
    try {
      const c = JSON.parse(value) as Partial<RecordedChange>;
      if (c.kind === 'added' || c.kind === 'removed') this.#urls.set(url, { kind: c.kind });
      else if (c.kind === 'changed') this.#urls.set(url, { kind: 'changed', diff: String(c.diff ?? '') });
    } catch {
      // An entry that is not JSON was not written by this class: left out.
    }
  }

  /** How many urls changed so far. */
  get size(): number {
    return this.#urls.size;
  }

  /** The change set, each list sorted by url. */
  changeSet(): ChangeSet {
    const set = emptyChangeSet();
    for (const [url, c] of [...this.#urls].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (c.kind === 'added') set.added.push(url);
      else if (c.kind === 'removed') set.removed.push(url);
      else set.changed.push({ url, diff: c.diff ?? '' });
    }
    return set;
  }
}
