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
 */
export class ChangeRecorder {
  readonly #urls = new Map<string, { kind: 'added' | 'changed' | 'removed'; diff?: string }>();

  /** A page saved: added when the version held no page for its url, else changed with its diff. */
  saved(url: string, diff: string | undefined): void {
    const before = this.#urls.get(url)?.kind;
    if (before === 'added') return;
    if (before === 'removed') this.#urls.set(url, { kind: 'changed', diff: diff ?? '(removed, then saved again)' });
    else if (diff === undefined) this.#urls.set(url, { kind: 'added' });
    else this.#urls.set(url, { kind: 'changed', diff });
  }

  /** A page the version held was removed from every layer. */
  removed(url: string): void {
    if (this.#urls.get(url)?.kind === 'added') this.#urls.delete(url);
    else this.#urls.set(url, { kind: 'removed' });
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
