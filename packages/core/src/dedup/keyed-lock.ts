/**
 * An in-process lock on string keys. A caller takes all its keys at once, in call order,
 * so two callers sharing any key run one after the other and no two callers can deadlock.
 */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<void>>();

  /** Keys currently held or waited for. */
  get size(): number {
    return this.#tails.size;
  }

  async run<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const unique = [...new Set(keys)];
    const before: Promise<void>[] = [];
    for (const key of unique) {
      const prev = this.#tails.get(key);
      if (prev) before.push(prev);
      this.#tails.set(key, mine);
    }
    try {
      await Promise.all(before);
      return await fn();
    } finally {
      release();
      for (const key of unique) if (this.#tails.get(key) === mine) this.#tails.delete(key);
    }
  }
}
