import type { ClearOptions, CrawlFrontier, FrontierCommit, FrontierEntry, LeasedEntry } from '@greenfinger/core';

/**
 * A member's frontier of a cluster run: at most `leases` urls handed out and not yet acknowledged, and urls that are
 * no longer its own taken out.
 *
 * - **Leases.** A url handed to a worker stays pending in the member's stream until the commit that records its page
 *   acknowledges it (cluster-crawl-coordinator.ts). A member killed then has its pending entries re-homed, and every
 *   one it had fetched is fetched again by another member. So no more than `leases` (the run's threads) are out at
 *   once: a poll beyond them answers nothing until a commit acknowledges some (the engine commits at once when a
 *   worker finds nothing), and the pages fetched twice after a member's death are at most its threads.
 * - **Revoked urls.** When a member was taken for dead (a stall longer than its heartbeat), the leader re-homed its
 *   stream: the entries it had read ahead into this frontier now belong to other members, who fetch them. On waking,
 *   its coordinator finds which (revalidate) and revokes them here: a revoked url is acknowledged as it comes out of
 *   the queue, never handed to a worker, so only the pages that were already in flight are fetched twice.
 */
export class RevocableFrontier implements CrawlFrontier {
  readonly #inner: CrawlFrontier;
  /** Urls handed out and not acknowledged at most (the run's threads). */
  readonly leases: number;
  readonly #revoked = new Set<string>();
  /** The last poll: the next waits for it. */
  #turn: Promise<unknown> = Promise.resolve();
  /** While set, polls wait for it (the member is checking what is still its own). */
  #gate: Promise<void> | undefined;
  /** Called before an entry is taken and before it is handed out: finds a lapse the heartbeat's tick has not. */
  readonly #checkLapse: () => void;
  /** Urls taken out when polled, for the report. */
  skipped = 0;

  /**
   * @param options.leases urls handed out and not acknowledged at most (the run's threads)
   * @param options.checkLapse tells the member's lapse watchers at once when its heartbeat lapsed
   *   (Membership.checkLapse): on waking from a freeze, the first poll holds itself and the others until the member
   *   has revoked what was re-homed, instead of taking a url in the moment before the heartbeat's tick finds it.
   */
  constructor(inner: CrawlFrontier, options: { leases?: number; checkLapse?: () => void } = {}) {
    this.#inner = inner;
    this.leases = Math.max(1, options.leases ?? Number.POSITIVE_INFINITY);
    this.#checkLapse = options.checkLapse ?? (() => undefined);
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
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const release = () => {
      clearTimeout(timer);
      if (this.#gate === gate) this.#gate = undefined;
      open();
    };
    const timer = setTimeout(release, maxMs);
    timer.unref();
    this.#gate = gate;
    return release;
  }

  /** One poll at a time, so the leases counted are the inner frontier's own (it takes a lease after an await). */
  poll(): Promise<LeasedEntry | undefined> {
    const polled = this.#turn.then(() => this.#poll());
    this.#turn = polled.catch(() => undefined);
    return polled;
  }

  async #poll(): Promise<LeasedEntry | undefined> {
    for (;;) {
      await this.#awake();
      // Every lease taken: nothing until a commit acknowledges one (the worker asking commits and waits for it).
      if (this.#inner.inFlight() >= this.leases) return undefined;
      const entry = await this.#inner.poll();
      if (!entry) return entry;
      // The process may have been frozen while the entry was read: checked again before it is handed out.
      await this.#awake();
      if (!this.#revoked.delete(entry.url)) return entry;
      // Out of the queue, and not "handled here": should its entry come back to this member (a ring that moved
      // again forwards it), it is queued and fetched then.
      await this.#inner.ack(entry);
      await this.#inner.reopen([entry.url]);
      this.skipped++;
    }
  }

  /** Past any lapse just found and any check of what is still this member's own. */
  async #awake(): Promise<void> {
    this.#checkLapse();
    while (this.#gate) await this.#gate;
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
