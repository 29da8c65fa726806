import type { Logger } from 'pino';
import type { ExtractedContent } from '../content/content-extractor.js';
import { errorMessage, FetchError } from '../errors.js';
import type { FetchResult } from '../fetch/extractor.js';
import { ids, sha256Hex, urlHash } from '../ids.js';
import { keys } from '../layout.js';
import type { ImageRow } from '../model.js';
import { Outcome } from '../outcomes.js';
import type { PageImage } from '../outputs/output-channel.js';
import type { PictureTally } from './counters.js';
import type { CrawlEngineDeps } from './engine-deps.js';
import { checkImage, imageExtension } from './image-probe.js';
import { politeFetch } from './polite-fetch.js';

const MAX_CACHED_URLS = 200_000;

type ImageDeps = Pick<
  CrawlEngineDeps,
  'catalog' | 'version' | 'settings' | 'records' | 'inflight' | 'imageFetcher' | 'politeness' | 'normalize' | 'pictures'
>;

/** Counts nothing: pictures fetched outside a run's counters. */
const NO_TALLY: PictureTally = { pictureRejected: () => undefined };

/**
 * The pictures of the pages (img / srcset / <picture> / og:image): each picture url is fetched once per run, each
 * picture stored once per version by content hash. A page showing a picture this version already holds links it
 * without fetching it. A picture is checked from its bytes before it is kept (`checkImage`: signature, header,
 * complete file, dimensions; the fetch stops at GF_IMAGE_MAX_BYTES); one not kept is counted in the `tally`
 * (the report's `pictures`), never among the urls.
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
  async forPage(content: ExtractedContent, pageUrl: string, tally: PictureTally = NO_TALLY): Promise<PageImage[]> {
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
          const fetching = this.#obtain(url, ref.alt, ref.surroundingText, tally);
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

  /**
   * One picture: fetched here, or — when another process crawling the run claimed it first (`pictures`, a cluster) —
   * the row it became, linked without a request. A registry that cannot answer leaves the fetch to this run.
   */
  async #obtain(
    url: string,
    alt: string,
    surroundingText: string,
    tally: PictureTally,
  ): Promise<PageImage | undefined> {
    const registry = this.#d.pictures;
    if (!registry) return this.#fetch(url, alt, surroundingText, tally);
    const claim = await registry.claim(url).catch((err: unknown) => {
      this.#log.warn({ url, err: errorMessage(err) }, 'picture registry not answering; fetching the picture here');
      return { fetch: true } as const;
    });
    if (!claim.fetch) return claim.row && { row: claim.row, alt, surroundingText };
    const img = await this.#fetch(url, alt, surroundingText, tally);
    await registry.settle(url, img?.row).catch((err: unknown) => {
      this.#log.warn({ url, err: errorMessage(err) }, 'picture registry not told; others fetch this picture again');
    });
    return img;
  }

  /** One picture; its answer goes to the write-ahead log like a page's. Undefined: not kept (and tallied). */
  async #fetch(url: string, alt: string, surroundingText: string, tally: PictureTally): Promise<PageImage | undefined> {
    const d = this.#d;
    const hash = urlHash(url);
    const maxBytes = d.settings.imageMaxBytes;
    const refuse = (outcome: Outcome, detail: string | undefined, why: string): undefined => {
      tally.pictureRejected(outcome, detail, `${url}: ${why}`);
      this.#log.debug({ url, outcome, detail, why }, 'picture not kept');
      return undefined;
    };
    let result: Omit<FetchResult, 'text'> | undefined = await d.inflight.load(hash);
    if (!result) {
      try {
        result = await politeFetch(d.politeness, d.imageFetcher, url, { binary: true, maxBytes });
      } catch (err) {
        const tooLarge = err instanceof FetchError && err.reason === 'too-large';
        return refuse(
          tooLarge ? Outcome.REJECTED_TOO_LARGE : Outcome.REJECTED_UNREACHABLE,
          undefined,
          errorMessage(err),
        );
      }
      await d.inflight.save(hash, result);
    }
    if (result.status === 404 || result.status === 410) {
      return refuse(Outcome.REJECTED_NOTFOUND, undefined, `HTTP ${result.status}`);
    }
    if (result.status !== 200)
      return refuse(Outcome.REJECTED_BAD_STATUS, String(result.status), `HTTP ${result.status}`);
    if (result.body.length > maxBytes) {
      return refuse(
        Outcome.REJECTED_TOO_LARGE,
        undefined,
        `${result.body.length} bytes, cap ${maxBytes} (GF_IMAGE_MAX_BYTES)`,
      );
    }
    const served = result.contentType.split(';')[0]?.trim().toLowerCase() || 'no content type';
    const check = checkImage(result.body, { maxSide: d.settings.imageMaxSide, maxPixels: d.settings.imageMaxPixels });
    if (!check.ok) return refuse(Outcome.REJECTED_BAD_IMAGE, check.reason, `${check.why} (served as ${served})`);
    const min = d.settings.imageMinSize;
    if (check.width !== undefined && check.height !== undefined && (check.width < min || check.height < min)) {
      return refuse(
        Outcome.REJECTED_FILTER,
        'image-min-size',
        `${check.width}×${check.height} px, under ${min} px a side (GF_IMAGE_MIN_SIZE)`,
      );
    }
    const contentHash = sha256Hex(result.body);
    const id = ids.image(d.catalog.id, d.version, contentHash);
    const row: ImageRow = {
      id,
      catalogId: d.catalog.id,
      version: d.version,
      url,
      contentHash,
      contentType: check.contentType,
      path: keys.image(d.catalog.id, d.version, id, imageExtension(check.contentType, url, check.ext)),
      bytes: result.body.length,
      width: check.width ?? null,
      height: check.height ?? null,
      createdAt: new Date().toISOString(),
    };
    if (this.#stored.has(id)) return { row, alt, surroundingText };
    this.#stored.add(id);
    return { row, alt, surroundingText, bytes: result.body };
  }
}
