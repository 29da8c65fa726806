import type { ComponentFactory } from '../compose/component-factory.js';
import type { RunContext } from '../compose/components.js';
import { assembleDocuments } from '../compose/document-assembly.js';
import {
  assembleExtract,
  assembleFetchers,
  assemblePoliteness,
  openExtractPool,
  vectorOutput,
} from '../compose/run-assembly.js';
import { reportStamp } from '../engine/run-report.js';
import { ConfigError, CrawlerError, errorMessage } from '../errors.js';
import type { Extractor } from '../fetch/extractor.js';
import { isMarkupType } from '../fetch/http-extractor.js';
import { sha256Hex } from '../ids.js';
import { keys } from '../layout.js';
import type { Catalog, ImageRow, OutputLayer, ResourceRow } from '../model.js';
import { IndexOutputChannel } from '../outputs/index-output-channel.js';
import type { CrawledPage } from '../outputs/output-channel.js';
import type { VectorOutputChannel } from '../outputs/vector-output-channel.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import { optimizeVersion } from './optimize-version.js';
import { assertNotRunning } from './version-service.js';

export type ReplayLayer = OutputLayer;
const REPLAY_ORDER: readonly ReplayLayer[] = ['file', 'index', 'vector'];

export interface ReplayProgress {
  layer: ReplayLayer;
  done: number;
  total: number;
}

export interface ReplayOptions {
  /** @default the served version, else the one being written */
  version?: number | undefined;
  /** Rebuilt in the order file → index → vector, whatever order they are given in. */
  layers: ReplayLayer[];
  onProgress?: ((progress: ReplayProgress) => void) | undefined;
}

/** Pages or pictures of the file layer: checked = intact + written + changed + unreachable. */
export interface FileReplayCounts {
  checked: number;
  /** Nothing missing. */
  intact: number;
  /** Missing files written again with the content the row records. */
  written: number;
  /** Refetched, but the content differs from the row (a page is rewritten and its row updated; a picture is not). */
  changed: number;
  /** Missing, and the refetch failed. */
  unreachable: number;
}

export interface ReplayReport {
  catalogId: string;
  catalog: string;
  version: number;
  layers: {
    file?: { pages: FileReplayCounts; images: FileReplayCounts; failures: Array<{ url: string; reason: string }> };
    index?: { written: number; failed: number };
    vector?: { written: number; failed: number; chunks: number };
  };
  /** HTTP requests made (only the file layer fetches). */
  requests: number;
  /** catalogs.json was rewritten so search answers for this catalog. */
  republished: boolean;
  startedAt: string;
  endedAt: string;
  elapsedMs: number;
  /** Where this report was written (a blob key). */
  path?: string;
}

const MAX_FAILURES_LISTED = 20;

/**
 * Rebuilds output layers of a stored version: `file` refetches only the pages and pictures whose files are
 * missing, from the urls the rows record; `index` and `vector` are rebuilt from the files and never fetch.
 * Every write is keyed by the same deterministic ids, so replaying twice changes nothing.
 */
export class ReplayService {
  readonly #gf: ComponentFactory;
  readonly #catalogs: () => Promise<CatalogService>;

  constructor(factory: ComponentFactory, catalogs: () => Promise<CatalogService>) {
    this.#gf = factory;
    this.#catalogs = catalogs;
  }

  async replay(ref: CatalogRef, options: ReplayOptions): Promise<ReplayReport> {
    const gf = this.#gf;
    const started = new Date();
    const layers = normalizeLayers(options.layers);
    const catalog = await (await this.#catalogs()).get(ref);
    const version = options.version ?? (catalog.searchVersion >= 0 ? catalog.searchVersion : catalog.indexVersion);
    const db = await gf.database();
    const versions = await db.resources.versions(catalog.id);
    if (!versions.includes(version)) {
      throw new CrawlerError('NOT_FOUND', `catalog "${catalog.name}" has no stored version ${version}`, {
        fix: versions.length
          ? `stored versions: ${versions.join(', ')} (greenfinger versions --id ${catalog.id})`
          : 'crawl it first: replay rebuilds from what a crawl stored',
      });
    }
    await assertNotRunning(gf, catalog);
    const handle = await gf.runs.acquire(catalog.id, 'replay');
    const report: ReplayReport = {
      catalogId: catalog.id,
      catalog: catalog.name,
      version,
      layers: {},
      requests: 0,
      republished: false,
      startedAt: started.toISOString(),
      endedAt: started.toISOString(),
      elapsedMs: 0,
    };
    try {
      if (layers.includes('file')) report.layers.file = await this.#files(catalog, version, report, options);
      const rebuild = layers.filter((l): l is 'index' | 'vector' => l !== 'file');
      if (rebuild.length > 0) Object.assign(report.layers, await this.#rebuild(catalog, version, rebuild, options));
      report.republished = await gf.writer.restorePublished(catalog.id, version);
      const ended = new Date();
      report.endedAt = ended.toISOString();
      report.elapsedMs = ended.getTime() - started.getTime();
      report.path = keys.report(catalog.id, version, reportStamp(ended), 'replay', gf.settings.node);
      await gf.blobs.put(report.path, `${JSON.stringify(report, null, 2)}\n`);
      gf.log.info({ catalogId: catalog.id, version, layers, requests: report.requests }, 'replay done');
      return report;
    } finally {
      await handle.release();
    }
  }

  /** Refetch pages and pictures whose files are missing; the rest is left untouched. */
  async #files(
    catalog: Catalog,
    version: number,
    report: ReplayReport,
    options: ReplayOptions,
  ): Promise<NonNullable<ReplayReport['layers']['file']>> {
    const gf = this.#gf;
    const db = await gf.database();
    const s = catalog.settings;
    const pages = emptyCounts();
    const images = emptyCounts();
    const failures: Array<{ url: string; reason: string }> = [];
    const fail = (url: string, reason: string) => {
      if (failures.length < MAX_FAILURES_LISTED) failures.push({ url, reason });
    };
    const total = (await db.resources.count(catalog.id, version)).resources;

    const missing: Array<{ row: ResourceRow; html: boolean; text: boolean }> = [];
    for await (const rows of db.resources.iterateResources(catalog.id, version, 500)) {
      for (const row of rows) {
        pages.checked++;
        const [html, text] = await Promise.all([gf.blobs.exists(row.htmlPath), gf.blobs.exists(row.textPath)]);
        if (html && text) pages.intact++;
        else missing.push({ row, html: !html, text: !text });
      }
      options.onProgress?.({ layer: 'file', done: pages.checked, total });
    }
    const missingImages: ImageRow[] = [];
    for await (const rows of db.resources.iterateImages(catalog.id, version, 500)) {
      for (const img of rows) {
        images.checked++;
        if (await gf.blobs.exists(img.path)) images.intact++;
        else missingImages.push(img);
      }
    }
    if (missing.length === 0 && missingImages.length === 0) return { pages, images, failures };

    const ctx: RunContext = {
      settings: gf.settings,
      layout: gf.layout,
      log: gf.log,
      catalog,
      version,
      action: 'replay',
    };
    const fetchers = assembleFetchers(gf, ctx);
    const pageFetcher = counted(fetchers.page, report);
    const imageFetcher = counted(fetchers.image, report);
    const politeness = assemblePoliteness(gf, ctx);
    const pool = openExtractPool(gf, { inline: true });
    const extract = assembleExtract(gf, catalog, pool);
    const documents = assembleDocuments(gf, catalog);
    const polite = async <T>(url: string, work: () => Promise<T>): Promise<T> => {
      const release = await politeness.acquire(new URL(url).host);
      try {
        return await work();
      } finally {
        release();
      }
    };
    let done = pages.intact;
    try {
      await eachLimited(missing, s.threads, async ({ row, html, text }) => {
        try {
          const document = documents.deps.documentKind?.(row.contentType, row.url);
          const cap = documents.deps.documentMaxBytes;
          const result = await polite(row.url, () =>
            pageFetcher.fetch(row.url, document ? { document: () => cap } : {}),
          );
          const readable = document
            ? result.body.length > 0
            : isMarkupType(result.contentType) && result.text !== undefined;
          if (result.status !== 200 || !readable) {
            pages.unreachable++;
            fail(row.url, `HTTP ${result.status} ${result.contentType.split(';')[0] ?? ''}`.trim());
            return;
          }
          // A document is read again by its parser; a page by the catalog's content extractor.
          const content =
            document && documents.deps.parseDocument
              ? await documents.deps.parseDocument(result.body, row.url, result.contentType)
              : await extract(result.text ?? '', row.url, result.contentType);
          const contentHash = sha256Hex(content.text);
          if (contentHash === row.contentHash) {
            if (html) await gf.blobs.put(row.htmlPath, result.body);
            if (text) await gf.blobs.put(row.textPath, content.text);
            pages.written++;
            return;
          }
          await gf.blobs.put(row.htmlPath, result.body);
          await gf.blobs.put(row.textPath, content.text);
          await db.resources.saveResources([
            {
              ...row,
              title: content.title || row.url,
              contentType: result.contentType,
              charset: result.charset,
              contentHash,
              etag: result.etag,
              lastModified: result.lastModified,
              htmlBytes: result.body.length,
              textChars: content.text.length,
              linkDensity: content.linkDensity,
              fetchedAt: new Date().toISOString(),
            },
          ]);
          pages.changed++;
        } catch (err) {
          pages.unreachable++;
          fail(row.url, errorMessage(err));
        } finally {
          done++;
          if (done % 50 === 0) options.onProgress?.({ layer: 'file', done, total });
        }
      });
      await eachLimited(missingImages, s.threads, async (img) => {
        try {
          const result = await polite(img.url, () => imageFetcher.fetch(img.url, { binary: true }));
          if (result.status !== 200 || result.body.length === 0) {
            images.unreachable++;
            fail(img.url, `HTTP ${result.status}`);
            return;
          }
          if (sha256Hex(result.body) !== img.contentHash) {
            images.changed++;
            fail(img.url, 'the picture changed: its id is its content hash, so it is not written under the old id');
            return;
          }
          await gf.blobs.put(img.path, result.body);
          images.written++;
        } catch (err) {
          images.unreachable++;
          fail(img.url, errorMessage(err));
        }
      });
    } finally {
      await documents.close();
      await pool.close();
      await fetchers.close();
    }
    options.onProgress?.({ layer: 'file', done: total, total });
    return { pages, images, failures };
  }

  /** Index documents and vectors built from the files through the crawl's own channels. Never fetches. */
  async #rebuild(
    catalog: Catalog,
    version: number,
    layers: Array<'index' | 'vector'>,
    options: ReplayOptions,
  ): Promise<Pick<ReplayReport['layers'], 'index' | 'vector'>> {
    const gf = this.#gf;
    const db = await gf.database();
    const total = (await db.resources.count(catalog.id, version)).resources;
    let index: IndexOutputChannel | undefined;
    let vector: VectorOutputChannel | undefined;
    // Written and optimized off the event loop, as a crawl does (an API server keeps answering meanwhile).
    const writer = layers.includes('index') ? gf.indexWriter() : undefined;
    if (writer) index = new IndexOutputChannel(writer);
    if (layers.includes('vector')) vector = vectorOutput(gf, await gf.embedding(), await gf.vectors());
    const channels = [index, vector].filter((c): c is IndexOutputChannel | VectorOutputChannel => c !== undefined);
    let missingText = 0;
    let done = 0;
    try {
      try {
        for await (const rows of db.resources.iterateResources(catalog.id, version, 200)) {
          for (const resource of rows) {
            done++;
            const text = await gf.blobs.getText(resource.textPath);
            if (text === undefined) {
              missingText++;
              continue;
            }
            const images = (await db.resources.imagesOfResource(resource.id)).map(
              ({ alt, surroundingText, ...row }) => ({ row, alt, surroundingText }),
            );
            const page: CrawledPage = { catalog, version, resource, text, images };
            for (const channel of channels) await channel.write(page);
          }
          for (const channel of channels) await channel.flush();
          options.onProgress?.({ layer: layers[layers.length - 1] as ReplayLayer, done, total });
        }
      } finally {
        for (const channel of channels) await channel.close();
      }
      // What a publish does, so a rebuilt version searches as fast as a crawled one.
      await optimizeVersion(gf.log, catalog.id, version, {
        index: writer,
        vectors: vector ? await gf.vectors() : undefined,
      });
    } finally {
      if (writer && writer !== gf.index()) await writer.close();
    }
    if (missingText > 0) {
      gf.log.warn(
        { catalogId: catalog.id, version, missingText },
        'pages without a text file; replay --layers file first',
      );
    }
    const out: Pick<ReplayReport['layers'], 'index' | 'vector'> = {};
    if (index) {
      const c = index.counts();
      out.index = { written: c.written, failed: c.failed + missingText };
    }
    if (vector) {
      const c = vector.counts();
      out.vector = { written: c.written, failed: c.failed + missingText, chunks: vector.cost().chunks };
    }
    return out;
  }
}

/** An extractor that counts its requests into the report. */
function counted(e: Extractor, report: ReplayReport): Extractor {
  return {
    name: e.name,
    fetch: (url, o) => {
      report.requests++;
      return e.fetch(url, o);
    },
    close: () => e.close(),
  };
}

function emptyCounts(): FileReplayCounts {
  return { checked: 0, intact: 0, written: 0, changed: 0, unreachable: 0 };
}

function normalizeLayers(layers: ReplayLayer[]): ReplayLayer[] {
  const bad = layers.filter((l) => !REPLAY_ORDER.includes(l));
  if (bad.length > 0 || layers.length === 0) {
    throw new ConfigError(
      '--layers',
      bad.length ? `unknown layer "${bad.join(', ')}"` : 'name the layers to replay',
      'use file, index and vector joined by +, e.g. --layers index+vector',
    );
  }
  return REPLAY_ORDER.filter((l) => layers.includes(l));
}

/** Run `work` over the items with at most `limit` at once. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(lanes);
}
