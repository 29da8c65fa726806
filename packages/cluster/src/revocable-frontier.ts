import type { ClearOptions, CrawlFrontier, FrontierCommit, FrontierEntry, LeasedEntry } from '@greenfinger/core';

/**
 * A member's frontier of a cluster run, with urls that are no longer its own taken out. When a member was taken for
 * dead (a stall longer than its heartbeat), the leader re-homed its stream: the entries it had read ahead into this
 * frontier now belong to other members, who fetch them. On waking, its coordinator finds which (revalidate) and
 * revokes them here: a revoked url is acknowledged as it comes out of the queue, never handed to a worker, so only the
 * pages that were already in flight are fetched twice.
 */
export class RevocableFrontier implements CrawlFrontier {
  readonly #inner: CrawlFrontier;
  readonly #revoked = new Set<string>();
  /** While set, polls wait for it (the member is checking what is still its own). */
  #gate: Promise<void> | undefined;
  /** Urls taken out when polled, for the report. */
  skipped = 0;

  constructor(inner: CrawlFrontier) {
    this.#inner = inner;
  }

  /** Take these urls out of the queue (they are acknowledged when they come out of it). */
  revoke(urls: Iterable<string>): void {
    for (const u of urls) this.#revoked.add(u);
  }

  /**
   * Hold every poll until the returned function is called (bounded by `maxMs`): no worker takes an entry while the
   * member finds out which are no longer its own.
   */
  hold(maxMs = 10_000): () => void {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const timer = setTimeout(release, maxMs);
    timer.unref();
    this.#gate = gate;
    return () => {
      clearTimeout(timer);
      if (this.#gate === gate) this.#gate = undefined;
      release();
    };
  }

  async poll(): Promise<LeasedEntry | undefined> {
    if (this.#gate) await this.#gate;
    for (;;) {
      const entry = await this.#inner.poll();
      if (!entry || !this.#revoked.delete(entry.url)) return entry;
      // Out of the queue, and not "handled here": should its entry come back to this member (a ring that moved
      // again forwards it), it is queued and fetched then.
      await this.#inner.ack(entry);
      await this.#inner.reopen([entry.url]);
      this.skipped++;
    }
  }

  put(entry: FrontierEntry): Promise<boolean> {
    this.#revoked.delete(entry.url);
    return this.#inner.put(entry);
  }
  putAll(entries: FrontierEntry[]): Promise<boolean[]> {
    for (const e of entries) this.#revoked.delete(e.url);
    return this.#inner.putAll(entries);
  }
  ack(entry: LeasedEntry): Promise<void> {
    return this.#inner.ack(entry);
  }
  size(): Promise<number> {
    return this.#inner.size();
  }
  inFlight(): number {
    return this.#inner.inFlight();
  }
  recover(options?: { keepRun?: boolean }): Promise<number> {
    return this.#inner.recover(options);
  }
  commit(batch: FrontierCommit): Promise<boolean[]> {
    return this.#inner.commit(batch);
  }
  journal(prefix: string): AsyncIterable<[string, string]> {
    return this.#inner.journal(prefix);
  }
  checkpoint(): Promise<string | undefined> {
    return this.#inner.checkpoint();
  }
  doneUrlHashes(batch?: number): AsyncIterable<string[]> {
    return this.#inner.doneUrlHashes(batch);
  }
  reopen(urls: string[]): Promise<number> {
    return this.#inner.reopen(urls);
  }
  clear(options?: ClearOptions): Promise<void> {
    this.#revoked.clear();
    return this.#inner.clear(options);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}
