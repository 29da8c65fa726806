/** What an export wrote, counted as it goes; `onProgress` hears about it at most every `everyMs`. */
export interface ExportCounts {
  /** Pages written. */
  pages: number;
  /** Of them, written as WARC `resource` records: saved before answers were kept (no status line, no headers). */
  withoutResponse: number;
  /** Pictures written (WARC, WACZ) or listed with their pages (jsonl). */
  pictures: number;
  /** Pages whose files were gone from the file layer: left out. */
  missing: number;
  /** The first few urls left out, to say which. */
  missingExamples: string[];
}

/** The progress of an export: pages done of the version's total. */
export interface ExportProgress {
  done: number;
  total: number;
}

/** Counts an export's pages and reports progress at most every `everyMs` (and once at the end). */
export class ExportTally {
  readonly counts: ExportCounts = { pages: 0, withoutResponse: 0, pictures: 0, missing: 0, missingExamples: [] };
  readonly #total: number;
  readonly #onProgress: ((p: ExportProgress) => void) | undefined;
  readonly #everyMs: number;
  #last = 0;

  constructor(total: number, onProgress?: (p: ExportProgress) => void, everyMs = 250) {
    this.#total = total;
    this.#onProgress = onProgress;
    this.#everyMs = everyMs;
  }

  page(pictures = 0, withoutResponse = false): void {
    this.counts.pages++;
    this.counts.pictures += pictures;
    if (withoutResponse) this.counts.withoutResponse++;
    this.#tick();
  }

  picture(): void {
    this.counts.pictures++;
  }

  missing(url: string): void {
    this.counts.missing++;
    if (this.counts.missingExamples.length < 5) this.counts.missingExamples.push(url);
    this.#tick();
  }

  /** The last progress report: everything done. */
  end(): void {
    this.#onProgress?.({ done: this.counts.pages + this.counts.missing, total: this.#total });
  }

  #tick(): void {
    if (!this.#onProgress) return;
    const now = Date.now();
    if (now - this.#last < this.#everyMs) return;
    this.#last = now;
    this.#onProgress({ done: this.counts.pages + this.counts.missing, total: this.#total });
  }
}
