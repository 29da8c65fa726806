/** How many failed sign-ins are allowed in a window, per user name and per client address. */
export interface LoginLimits {
  /** @default 5 */
  perUser: number;
  /** @default 20 */
  perAddress: number;
  /** @default 15 minutes */
  windowMs: number;
}

const DEFAULT_LIMITS: LoginLimits = { perUser: 5, perAddress: 20, windowMs: 15 * 60_000 };
/** Keys remembered at most (the oldest are forgotten first): a flood of names cannot grow memory without bound. */
const MAX_KEYS = 10_000;

/**
 * Failed sign-ins per user and per address in a sliding window. While either is over its limit, every sign-in
 * (a right password too) is refused with the seconds until the oldest failure leaves the window.
 */
export class LoginLimiter {
  readonly #limits: LoginLimits;
  readonly #failures = new Map<string, number[]>();
  readonly #now: () => number;

  constructor(limits: Partial<LoginLimits> = {}, now: () => number = Date.now) {
    this.#limits = { ...DEFAULT_LIMITS, ...limits };
    this.#now = now;
  }

  /** Seconds to wait before trying again, or 0 when a sign-in may be tried now. */
  retryAfter(user: string, address: string): number {
    const now = this.#now();
    const wait = Math.max(
      this.#wait(`u:${user.toLowerCase()}`, this.#limits.perUser, now),
      this.#wait(`a:${address}`, this.#limits.perAddress, now),
    );
    return Math.ceil(wait / 1000);
  }

  failed(user: string, address: string): void {
    const now = this.#now();
    this.#push(`u:${user.toLowerCase()}`, now);
    this.#push(`a:${address}`, now);
  }

  /** A right password: the user's failures are forgotten (the address keeps its count). */
  succeeded(user: string): void {
    this.#failures.delete(`u:${user.toLowerCase()}`);
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
