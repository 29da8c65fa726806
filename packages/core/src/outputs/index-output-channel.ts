import type { IndexDocument, SearchIndex } from '../index/search-index.js';
import type { CrawledPage, OutputChannel } from './output-channel.js';

/** Build the self-contained index document of a page: search renders a result without a join. */
export function toIndexDocument(page: CrawledPage): IndexDocument {
  const { resource, catalog } = page;
  const images = pageOrderFree(page.images);
  return {
    id: resource.id,
    catalogId: resource.catalogId,
    catalogName: catalog.name,
    version: resource.version,
    url: resource.url,
    title: resource.title,
    text: page.text,
    imageText: images
      .map((i) => [i.alt, i.surroundingText].filter(Boolean).join(' '))
      .filter(Boolean)
      .join('\n'),
    htmlPath: resource.htmlPath,
    textPath: resource.textPath,
    images: images.map((i) => ({
      id: i.row.id,
      path: i.row.path,
      url: i.row.url,
      alt: i.alt,
      caption: i.surroundingText,
      width: i.row.width,
      height: i.row.height,
    })),
    linkDensity: resource.linkDensity,
    fetchedAt: resource.fetchedAt,
  };
}

/** The full-text layer: documents are buffered and upserted in batches. */
export class IndexOutputChannel implements OutputChannel {
  readonly layer = 'index' as const;
  readonly #index: SearchIndex;
  readonly #batchSize: number;
  #buffer: IndexDocument[] = [];
  #written = 0;
  #failed = 0;
  #lastError: string | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #listener: ((resourceId: string, ok: boolean) => void) | undefined;

  constructor(index: SearchIndex, options: { batchSize?: number } = {}) {
    this.#index = index;
    this.#batchSize = options.batchSize ?? 200;
  }

  async write(page: CrawledPage): Promise<void> {
    this.#buffer.push(toIndexDocument(page));
    if (this.#buffer.length >= this.#batchSize) await this.#drain();
  }

  #drain(): Promise<void> {
    const batch = this.#buffer;
    this.#buffer = [];
    if (batch.length === 0) return this.#flushing;
    this.#flushing = this.#flushing.then(async () => {
      let ok = true;
      try {
        await this.#index.upsert(batch);
        this.#written += batch.length;
      } catch (err) {
        ok = false;
        this.#failed += batch.length;
        this.#lastError = err instanceof Error ? err.message : String(err);
      }
      for (const doc of batch) this.#listener?.(doc.id, ok);
    });
    return this.#flushing;
  }

  async flush(): Promise<void> {
    await this.#drain();
  }

  setDurableListener(listener: (resourceId: string, ok: boolean) => void): void {
    this.#listener = listener;
  }

  async deleteVersion(catalogId: string, version: number, dryRun: boolean): Promise<{ count: number; bytes: number }> {
    const count = dryRun
      ? await this.#index.countVersion(catalogId, version)
      : await this.#index.deleteVersion(catalogId, version);
    return { count, bytes: 0 };
  }

  counts(): { written: number; failed: number; lastError?: string } {
    return { written: this.#written, failed: this.#failed, ...(this.#lastError ? { lastError: this.#lastError } : {}) };
  }

  async close(): Promise<void> {
    await this.flush();
  }
}

/**
 * A page's pictures once each, by url: the same document whether a crawl writes it (pictures in the order of the page,
 * a picture shown twice met twice) or a replay does (the picture links of the database, in no order of the page).
 */
function pageOrderFree(images: CrawledPage['images']): CrawledPage['images'] {
  const seen = new Set<string>();
  return images
    .filter((i) => !seen.has(i.row.id) && Boolean(seen.add(i.row.id)))
    .sort((a, b) => (a.row.url < b.row.url ? -1 : a.row.url > b.row.url ? 1 : a.row.id < b.row.id ? -1 : 1));
}
