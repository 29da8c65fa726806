import type { Logger } from 'pino';
import type { ExtractedContent } from '../content/content-extractor.js';
import { errorMessage } from '../errors.js';
import type { FetchResult } from '../fetch/extractor.js';
import { ids, sha256Hex, urlHash } from '../ids.js';
import { keys } from '../layout.js';
import type { ImageRow } from '../model.js';
import type { PageImage } from '../outputs/output-channel.js';
import type { CrawlEngineDeps } from './engine-deps.js';
import { imageExtension, probeImageSize } from './image-probe.js';
import { politeFetch } from './polite-fetch.js';

const MAX_CACHED_URLS = 200_000;

type ImageDeps = Pick<
  CrawlEngineDeps,
  'catalog' | 'version' | 'settings' | 'records' | 'inflight' | 'imageFetcher' | 'politeness' | 'normalize'
>;

/**
 * The pictures of the pages (img / srcset / <picture> / og:image): each picture url is fetched once per run, each
 * picture stored once per version by content hash. A page showing a picture this version already holds links it
 * without fetching it.
 */
export class PageImages {
  readonly #d: ImageDeps;
  readonly #log: Logger;
  /** Picture url → its row (undefined: not a picture worth keeping); pages handled at once share one fetch. */
  readonly #byUrl = new Map<string, Promise<ImageRow | undefined>>();
  /** Image ids whose bytes are stored, or travel with the page that fetched them. */
  readonly #stored = new Set<string>();

  constructor(deps: ImageDeps, log: Logger) {
    this.#d = deps;
    this.#log = log;
  }

  /** Pictures this version already holds: a page showing one again links it without fetching it. */
  async loadKnown(): Promise<void> {
    const d = this.#d;
    for await (const rows of d.records.iterateImages(d.catalog.id, d.version)) {
      for (const row of rows) {
        if (this.#byUrl.size >= MAX_CACHED_URLS) return;
        this.#byUrl.set(row.url, Promise.resolve(row));
        this.#stored.add(row.id);
      }
    }
  }

  /** Pictures of one page, fetched together: once per run, stored once per version by content hash. */
  async forPage(content: ExtractedContent, pageUrl: string): Promise<PageImage[]> {
    const d = this.#d;
    const min = d.settings.imageMinSize;
    const wanted = content.images.slice(0, d.settings.imagesPerPage).flatMap((ref) => {
      if (ref.width !== undefined && ref.height !== undefined && (ref.width < min || ref.height < min)) return [];
      const url = d.normalize(ref.url, pageUrl);
      return url ? [{ ref, url }] : [];
    });
    const found = await Promise.all(
      wanted.map(async ({ ref, url }): Promise<PageImage | undefined> => {
        let known = this.#byUrl.get(url);
        let fresh: PageImage | undefined;
        if (known === undefined) {
          // Pages handled at the same time share one fetch of a picture they both show.
          const fetching = this.#fetch(url, ref.alt, ref.surroundingText);
          known = fetching.then((img) => img?.row);
          if (this.#byUrl.size < MAX_CACHED_URLS) this.#byUrl.set(url, known);
          fresh = await fetching;
        }
        const row = await known;
        return row && (fresh ?? { row, alt: ref.alt, surroundingText: ref.surroundingText });
      }),
    );
    // One picture under two urls is one image; keep the copy that carries the bytes, if this page fetched them.
    const byId = new Map<string, PageImage>();
    for (const img of found) {
      if (img && (!byId.has(img.row.id) || (img.bytes && !byId.get(img.row.id)?.bytes))) byId.set(img.row.id, img);
    }
    return [...byId.values()];
  }

  /**
   * A page failed after its pictures were fetched: the ones whose bytes only it carried were never stored, so a
   * later page showing them fetches them again (from the write-ahead log) and stores them.
   */
  forget(images: readonly PageImage[]): void {
    for (const img of images) {
      if (!img.bytes) continue;
      this.#stored.delete(img.row.id);
      this.#byUrl.delete(img.row.url);
    }
  }

  /** One picture; its answer goes to the write-ahead log like a page's. */
  async #fetch(url: string, alt: string, surroundingText: string): Promise<PageImage | undefined> {
    const d = this.#d;
    const hash = urlHash(url);
    let result: Omit<FetchResult, 'text'> | undefined = await d.inflight.load(hash);
    if (!result) {
      try {
        result = await politeFetch(d.politeness, d.imageFetcher, url, { binary: true });
      } catch (err) {
        this.#log.debug({ url, err: errorMessage(err) }, 'image fetch failed');
        return undefined;
      }
      await d.inflight.save(hash, result);
    }
    if (result.status !== 200 || result.body.length === 0 || result.body.length > d.settings.imageMaxBytes)
      return undefined;
    const type = result.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const probe = probeImageSize(result.body);
    if (!type.startsWith('image/') && !probe) return undefined;
    const min = d.settings.imageMinSize;
    if (probe && (probe.width < min || probe.height < min)) return undefined;
    const contentHash = sha256Hex(result.body);
    const id = ids.image(d.catalog.id, d.version, contentHash);
    const row: ImageRow = {
      id,
      catalogId: d.catalog.id,
      version: d.version,
      url,
      contentHash,
      contentType: type || `image/${probe?.ext ?? 'unknown'}`,
      path: keys.image(d.catalog.id, d.version, id, imageExtension(type, url, probe?.ext)),
      bytes: result.body.length,
      width: probe?.width ?? null,
      height: probe?.height ?? null,
      createdAt: new Date().toISOString(),
    };
    if (this.#stored.has(id)) return { row, alt, surroundingText };
    this.#stored.add(id);
    return { row, alt, surroundingText, bytes: result.body };
  }
}
