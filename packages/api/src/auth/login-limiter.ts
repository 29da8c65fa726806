/** How many failed sign-ins are allowed in a window, per user name at one address and per client address. */
export interface LoginLimits {
  /**
   * Failed sign-ins of one user name from one address. Keyed by the pair, not by the name alone: wrong passwords
   * sent from one address must not lock the user out from every other address (the admin included). @default 5
   */
  perUser: number;
  /** Failed sign-ins from one address, whatever the names. @default 20 */
  perAddress: number;
  /** @default 15 minutes */
  windowMs: number;
}

const DEFAULT_LIMITS: LoginLimits = { perUser: 5, perAddress: 20, windowMs: 15 * 60_000 };
/** Keys remembered at most (the oldest are forgotten first): a flood of names cannot grow memory without bound. */
const MAX_KEYS = 10_000;

/** One sign-in attempt, counted as failed from the start: {@link LoginLimiter.refund} takes it back. */
export interface LoginAttempt {
  /** Seconds to wait before trying again; 0 when this attempt may check its password (and was counted). */
  wait: number;
  readonly keys: string[];
  readonly at: number;
}

/**
 * Failed sign-ins per (user, address) and per address in a sliding window. An attempt is counted before its password
 * is checked and refunded when it turns out right, so 40 wrong passwords sent at once cannot all be checked: the ones
 * past the limit are refused before any check. While a key is over its limit, every sign-in it covers (a right
 * password too) is refused with the seconds until the oldest failure leaves the window.
 */
export class LoginLimiter {
  readonly #limits: LoginLimits;
  readonly #failures = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(limits: Partial<LoginLimits> = {}, now: () => number = Date.now) {
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
    this.#now = now;
  }

  /** Count an attempt now, or say how long to wait (nothing counted then). */
  begin(user: string, address: string): LoginAttempt {
    const now = this.#now();
    const pair = `u:${user.toLowerCase()}\u0000${address}`;
    const addr = `a:${address}`;
    const wait = Math.max(this.#wait(pair, this.#limits.perUser, now), this.#wait(addr, this.#limits.perAddress, now));
    if (wait > 0) return { wait: Math.ceil(wait / 1000), keys: [], at: now };
    this.#push(pair, now);
    this.#push(addr, now);
    return { wait: 0, keys: [pair, addr], at: now };
  }

  /** The attempt did not fail (a right password, or it was never checked): it no longer counts. */
  refund(attempt: LoginAttempt): void {
    for (const key of attempt.keys) {
      const times = this.#failures.get(key);
      const i = times?.lastIndexOf(attempt.at) ?? -1;
      if (times && i >= 0) times.splice(i, 1);
    }
  }

  /** A right password: this attempt is refunded and the user's failures at this address are forgotten. */
  succeeded(attempt: LoginAttempt): void {
    this.refund(attempt);
    const pair = attempt.keys[0];
    if (pair) this.#failures.delete(pair);
  }

  #wait(key: string, limit: number, now: number): number {
    const times = this.#recent(key, now);
    if (times.length < limit) return 0;
    return (times[times.length - limit] as number) + this.#limits.windowMs - now;
  }

  #recent(key: string, now: number): number[] {
    const times = (this.#failures.get(key) ?? []).filter((t) => t > now - this.#limits.windowMs);
    if (times.length === 0) this.#failures.delete(key);
    else this.#failures.set(key, times);
    return times;
  }

  #push(key: string, now: number): void {
    const times = this.#recent(key, now);
    times.push(now);
    if (times.length > 100) times.splice(0, times.length - 100);
    this.#failures.delete(key);
    this.#failures.set(key, times);
    while (this.#failures.size > MAX_KEYS) {
      const oldest = this.#failures.keys().next().value as string;
      this.#failures.delete(oldest);
    }
  }
}
