import type { EmbeddingClient } from '@greenfinger/core';

/**
 * A real embedding client (the tiny test model) whose document batches wait at a gate the test opens: a vector
 * phase that lasts as long as the test wants, so what search answers meanwhile can be looked at. Queries are never
 * held. `hold()` closes the gate, `allow(n)` lets n more batches through, `open()` lets everything through.
 */
export class GatedEmbeddingClient implements EmbeddingClient {
  readonly provider: string;
  readonly model: string;
  readonly dims: number;
  /** Document batches that went through the gate. */
  batches = 0;
  #allowed = Number.POSITIVE_INFINITY;
  #waiting: Array<() => void> = [];

  constructor(readonly inner: EmbeddingClient) {
    this.provider = inner.provider;
    this.model = inner.model;
    this.dims = inner.dims;
  }

  hold(): void {
    this.#allowed = this.batches;
  }

  allow(n: number): void {
    this.#allowed = (this.#allowed === Number.POSITIVE_INFINITY ? this.batches : this.#allowed) + n;
    this.#wake();
  }

  open(): void {
    this.#allowed = Number.POSITIVE_INFINITY;
    this.#wake();
  }

  #wake(): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const w of waiting) w();
  }

  async embedDocuments(texts: string[]): Promise<Float32Array[]> {
    // Bounded: a test that never opens the gate ends by its own timeout.
    for (let i = 0; i < 100_000 && this.batches >= this.#allowed; i++) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.batches++;
    return this.inner.embedDocuments(texts);
  }

  embedQuery(text: string): Promise<Float32Array> {
    return this.inner.embedQuery(text);
  }

  describe(): string {
    return `${this.inner.describe()} (gated by the test)`;
  }

  async close(): Promise<void> {
    this.#allowed = Number.POSITIVE_INFINITY;
    this.#wake();
  }
}

/** Poll `check` every 20 ms until it returns a value other than undefined, at most `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`not within ${ms} ms${last ? `: ${String(last)}` : ''}`);
}
