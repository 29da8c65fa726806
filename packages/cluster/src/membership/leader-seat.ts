import type { Logger } from '@greenfinger/core';
import type { LeaderGateway, LeaderHandler } from './leader-gateway.js';
import type { LeaderLease } from './leader-lease.js';

/** What a member's seat at the lease works with. */
export interface LeaderSeatOptions {
  lease: LeaderLease;
  gateway: LeaderGateway;
  /** What the leader channel serves while this member leads (leader-ops.ts). */
  handlers: () => Record<string, LeaderHandler>;
  /** One pass of the leader's watch over the run in progress (run-supervisor.ts), every 500 ms while leading. */
  supervise: () => Promise<void>;
  /** True once the member is leaving: the lease is no longer tried. */
  leaving: () => boolean;
  log: Logger;
}

/**
 * A member's seat at the leader lease: it renews the lease while it holds it and tries to take it otherwise, and
 * while it leads it serves the leader channel and watches the run. The leader renews every third of the lease; the
 * others try every tenth (at most every 500 ms), so a dead leader is replaced within the lease time plus that,
 * whatever moment it died at.
 */
export class LeaderSeat {
  readonly #o: LeaderSeatOptions;
  #leaseTimer: NodeJS.Timeout | undefined;
  #superviseTimer: NodeJS.Timeout | undefined;
  #supervising = false;
  #closed = false;

  constructor(options: LeaderSeatOptions) {
    this.#o = options;
  }

  isLeader(): boolean {
    return this.#o.lease.token > 0;
  }

  /** Try the lease once now, then keep at it. */
  async start(): Promise<void> {
    await this.#tick();
    this.#schedule();
  }

  /** Stop serving and watching (the lease itself is given up by the caller). */
  async stopLeading(): Promise<void> {
    if (this.#superviseTimer) clearInterval(this.#superviseTimer);
    this.#superviseTimer = undefined;
    await this.#o.gateway.stopServing();
  }

  /** Stop trying the lease, and leading. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#leaseTimer) clearTimeout(this.#leaseTimer);
    this.#leaseTimer = undefined;
    await this.stopLeading();
  }

  #schedule(): void {
    if (this.#closed) return;
    const ttl = this.#o.lease.ttlMs;
    const wait = this.isLeader() ? Math.floor(ttl / 3) : Math.min(500, Math.floor(ttl / 10));
    this.#leaseTimer = setTimeout(
      () => {
        void this.#tick().finally(() => this.#schedule());
      },
      Math.max(50, wait),
    );
    this.#leaseTimer.unref();
  }

  async #tick(): Promise<void> {
    if (this.#o.leaving()) return;
    const { lease, gateway, log } = this.#o;
    try {
      if (this.isLeader()) {
        if (!(await lease.renew())) await this.stopLeading();
        // Serving failed to start last time (Redis busy, say): try again rather than lead without an inbox.
        else if (!gateway.serving || !this.#superviseTimer) await this.#lead();
      } else if ((await lease.tryAcquire()) > 0) {
        await this.#lead();
      }
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'leader lease not checked');
    }
  }

  async #lead(): Promise<void> {
    if (!this.#superviseTimer) this.#o.log.info({ token: this.#o.lease.token }, 'this member leads the cluster');
    this.#superviseTimer ??= setInterval(() => void this.#superviseOnce(), 500);
    this.#superviseTimer.unref();
    await this.#o.gateway.serve(this.#o.handlers());
  }

  async #superviseOnce(): Promise<void> {
    if (this.#supervising || !this.isLeader()) return;
    this.#supervising = true;
    try {
      await this.#o.supervise();
    } catch (err) {
      this.#o.log.warn({ err }, 'run supervision failed; trying again');
    } finally {
      this.#supervising = false;
    }
  }
}
