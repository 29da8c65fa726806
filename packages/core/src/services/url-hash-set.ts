/** Slots per table at the start; the table doubles whenever it is half full. */
const INITIAL_SLOTS = 1024;
/** 128 bits of each sha256 are kept: 4 × 32-bit words a slot. */
const WORDS = 4;

/**
 * A set of sha256 url hashes (64 hex characters) in one flat table: the first 128 bits of each hash, open
 * addressing, a quarter to half full — 32 to 64 bytes a url, against ~100 for a `Set<string>` of hex strings
 * (100,000 urls: 4 MB). Two urls would have to share 128 bits of their sha256 to be confused. The orphan step
 * holds the urls a session reached in one (services/orphans.ts).
 */
export class UrlHashSet {
  #table = new Uint32Array(INITIAL_SLOTS * WORDS);
  #mask = INITIAL_SLOTS - 1;
  #size = 0;
  /** The one hash whose 128 bits are all zero (an empty slot reads so): kept apart. */
  #zero = false;

  /** Fill a set from batches of hashes (e.g. `CrawlFrontier.doneUrlHashes()`). */
  static async from(batches: AsyncIterable<readonly string[]>): Promise<UrlHashSet> {
    const set = new UrlHashSet();
    for await (const batch of batches) for (const hash of batch) set.add(hash);
    return set;
  }

  /** Distinct hashes held. */
  get size(): number {
    return this.#size;
  }

  /** Bytes the table takes. */
  get bytes(): number {
    return this.#table.byteLength;
  }

  /** @throws TypeError when `hash` is not a sha256 in hex */
  add(hash: string): void {
    const w = words(hash);
    if (isZero(w)) {
      if (!this.#zero) this.#size++;
      this.#zero = true;
      return;
    }
    if ((this.#size + 1) * 2 > this.#mask + 1) this.#grow();
    if (this.#place(this.#table, this.#mask, w)) this.#size++;
  }

  /** @throws TypeError when `hash` is not a sha256 in hex */
  has(hash: string): boolean {
    const w = words(hash);
    if (isZero(w)) return this.#zero;
    const t = this.#table;
    // At most half full: an empty slot is always reached.
    for (let i = (w[0] as number) & this.#mask; ; i = (i + 1) & this.#mask) {
      const at = i * WORDS;
      if (t[at] === 0 && t[at + 1] === 0 && t[at + 2] === 0 && t[at + 3] === 0) return false;
      if (t[at] === w[0] && t[at + 1] === w[1] && t[at + 2] === w[2] && t[at + 3] === w[3]) return true;
    }
  }

  /** Put `w` in its slot of `t`; false when it is there already. */
  #place(t: Uint32Array, mask: number, w: Uint32Array): boolean {
    for (let i = (w[0] as number) & mask; ; i = (i + 1) & mask) {
      const at = i * WORDS;
      if (t[at] === 0 && t[at + 1] === 0 && t[at + 2] === 0 && t[at + 3] === 0) {
        t.set(w, at);
        return true;
      }
      if (t[at] === w[0] && t[at + 1] === w[1] && t[at + 2] === w[2] && t[at + 3] === w[3]) return false;
    }
  }

  #grow(): void {
    const old = this.#table;
    const slots = (this.#mask + 1) * 2;
    const next = new Uint32Array(slots * WORDS);
    const mask = slots - 1;
    for (let at = 0; at < old.length; at += WORDS) {
      const w = old.subarray(at, at + WORDS);
      if (!isZero(w)) this.#place(next, mask, w);
    }
    this.#table = next;
    this.#mask = mask;
  }
}

const HEX = /^[0-9a-f]{64}$/i;
const scratch = new Uint32Array(WORDS);

/** The first 128 bits of a hex sha256 as four words (a shared scratch array: copy it to keep it). */
function words(hash: string): Uint32Array {
  if (!HEX.test(hash)) throw new TypeError(`not a sha256 in hex: "${hash.slice(0, 80)}"`);
  for (let i = 0; i < WORDS; i++) scratch[i] = Number.parseInt(hash.slice(i * 8, i * 8 + 8), 16);
  return scratch;
}

function isZero(w: Uint32Array): boolean {
  return w[0] === 0 && w[1] === 0 && w[2] === 0 && w[3] === 0;
}
