import { optimizeVersion } from '../admin/optimize-version.js';
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
import type { SearchIndex } from '../index/search-index.js';
import { keys } from '../layout.js';
import type { Catalog, ImageRow, OutputLayer, ResourceRow } from '../model.js';
import { IndexOutputChannel } from '../outputs/index-output-channel.js';
import type { CrawledPage, OutputChannel } from '../outputs/output-channel.js';
import type { VectorOutputChannel } from '../outputs/vector-output-channel.js';
import type { RunHandle } from '../runs/run-registry.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import { assertNotRunning } from './version-service.js';

export type ReplayLayer = OutputLayer;
const REPLAY_ORDER: readonly ReplayLayer[] = ['file', 'index', 'vector'];

export interface ReplayProgress {
  layer: ReplayLayer;
  done: number;
  total: number;
}

/**
 * A page whose files are both missing from this data root: `refetch` — they are lost: the file layer fetches the page
 * again, index and vector count it failed; `absent` — another data root may hold them (a cluster member's): the page is
 * listed in the slice's `absent`, neither fetched nor counted.
 */
export type ReplayMissing = 'refetch' | 'absent';

export interface ReplayOptions {
  /** @default the served version, else the one being written */
  version?: number | undefined;
  /** Rebuilt in the order file → index → vector, whatever order they are given in. */
  layers: ReplayLayer[];
  onProgress?: ((progress: ReplayProgress) => void) | undefined;
  /**
   * Only these pages of the version (resource ids; ids not in it are ignored) and the pictures they show: one slice of
   * a replay shared out (`ReplayService.resourceIds` lists every id in the order slices are cut from).
   * @default every page of the version
   */
  resourceIds?: readonly string[] | undefined;
  /** @default 'refetch' */
  missing?: ReplayMissing | undefined;
}

/** What a replay session is opened with: the version and the layers of all its slices. */
export interface ReplaySessionOptions {
  /** @default the served version, else the one being written */
  version?: number | undefined;
  layers: ReplayLayer[];
  onProgress?: ((progress: ReplayProgress) => void) | undefined;
  /**
   * More output channels every page the index layer rebuilds is written to (a cluster member sends its rebuilt index
   * documents to the others'). Flushed after each batch, closed when the session ends. @default none
   */
  indexChannels?: OutputChannel[] | undefined;
}

/** One slice of a session: which pages, and what a page whose files are not here means. */
export interface ReplaySlice {
  /** @default every page of the version */
  resourceIds?: readonly string[] | undefined;
  /** @default 'refetch' */
  missing?: ReplayMissing | undefined;
}

/** What one slice did (its counts are added to the session's report). */
export interface ReplaySliceReport {
  /** Pages of the slice found in the version. */
  pages: number;
  layers: ReplayReport['layers'];
  /** HTTP requests made (only the file layer fetches). */
  requests: number;
  /** Pages whose files are not in this data root (`missing: 'absent'`), by resource id, sorted. */
  absent: string[];
  elapsedMs: number;
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

  /** The whole replay (or one slice of it, `resourceIds`): a session of one slice that republishes at its end. */
  async replay(ref: CatalogRef, options: ReplayOptions): Promise<ReplayReport> {
    const session = await this.open(ref, options);
    try {
      await session.run({ resourceIds: options.resourceIds, missing: options.missing });
      return await session.finish();
    } finally {
      await session.close();
    }
  }

  /**
   * Take the catalog's run lock on this data root and open the layers' writers, for slices to run through
   * (`ReplaySession.run`) until `finish`: the lock is held from here to `close`, not per slice.
   * @throws CrawlerError NOT_FOUND without that version, CONFLICT while a crawl, replay or delete holds the catalog
   */
  async open(ref: CatalogRef, options: ReplaySessionOptions): Promise<ReplaySession> {
    const gf = this.#gf;
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
    return new ReplaySession(gf, { catalog, version, layers, handle, options });
  }

  /** Every page id of a version, in the stable order (by id) slices are cut from. */
  async resourceIds(catalogId: string, version: number): Promise<string[]> {
    return (await this.#gf.database()).resources.listResourceIds(catalogId, version);
  }
}

/**
 * One replay of one version on this data root: slices run one after another under the catalog's run lock, their
 * counts add up in `report`; `finish` prepares the version for serving once (champion lists, vector index), rewrites
 * the catalog's entry in catalogs.json when asked, and writes the report. Close it in every case.
 */
export class ReplaySession {
  readonly catalog: Catalog;
  readonly version: number;
  readonly layers: readonly ReplayLayer[];
  /** The counts of every slice so far. */
  readonly report: ReplayReport;
  readonly #gf: ComponentFactory;
  readonly #handle: RunHandle;
  readonly #options: ReplaySessionOptions;
  readonly #started = new Date();
  #queue: Promise<unknown> = Promise.resolve();
  #writer: SearchIndex | undefined;
  #index: IndexOutputChannel | undefined;
  #vector: VectorOutputChannel | undefined;
  #channels: OutputChannel[] | undefined;
  #closed = false;

  constructor(
    gf: ComponentFactory,
    init: {
      catalog: Catalog;
      version: number;
      layers: ReplayLayer[];
      handle: RunHandle;
      options: ReplaySessionOptions;
    },
  ) {
    this.#gf = gf;
    this.catalog = init.catalog;
    this.version = init.version;
    this.layers = init.layers;
    this.#handle = init.handle;
    this.#options = init.options;
    this.report = {
      catalogId: init.catalog.id,
      catalog: init.catalog.name,
      version: init.version,
      layers: {},
      requests: 0,
      republished: false,
      startedAt: this.#started.toISOString(),
      endedAt: this.#started.toISOString(),
      elapsedMs: 0,
    };
  }

  /** Replay one slice (after the slices before it); its counts are added to `report`. */
  run(slice: ReplaySlice = {}): Promise<ReplaySliceReport> {
    const next = this.#queue.then(() => this.#run(slice));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  async #run(slice: ReplaySlice): Promise<ReplaySliceReport> {
    if (this.#closed) {
      throw new CrawlerError('CONFLICT', `the replay of "${this.catalog.name}" is over`, {
        fix: 'open another replay session',
      });
    }
    const started = Date.now();
    const out: ReplaySliceReport = { pages: 0, layers: {}, requests: 0, absent: [], elapsedMs: 0 };
    const absent = new Set<string>();
    const work = { ids: slice.resourceIds, missing: slice.missing ?? 'refetch', absent, out };
    if (this.layers.includes('file')) out.layers.file = await this.#files(work);
    const rebuild = this.layers.filter((l): l is 'index' | 'vector' => l !== 'file');
    if (rebuild.length > 0) Object.assign(out.layers, await this.#rebuild(work, rebuild));
    out.absent = [...absent].sort();
    out.elapsedMs = Date.now() - started;
    addReplayLayers(this.report.layers, out.layers);
    this.report.requests += out.requests;
    return out;
  }

  /** The slice's resource rows in batches: those ids, or the whole version in id order. */
  async *#rows(ids: readonly string[] | undefined, batch: number): AsyncIterable<ResourceRow[]> {
    const db = await this.#gf.database();
    if (!ids) {
      yield* db.resources.iterateResources(this.catalog.id, this.version, batch);
      return;
    }
    for (let i = 0; i < ids.length; i += batch) {
      const rows = await db.resources.resourcesByIds(this.catalog.id, this.version, ids.slice(i, i + batch));
      if (rows.length > 0) yield rows;
    }
  }

  async #total(ids: readonly string[] | undefined): Promise<number> {
    if (ids) return ids.length;
    return (await (await this.#gf.database()).resources.count(this.catalog.id, this.version)).resources;
  }

  /** Refetch pages and pictures whose files are missing; the rest is left untouched. */
  async #files(work: SliceWork): Promise<NonNullable<ReplayReport['layers']['file']>> {
    const gf = this.#gf;
    const { catalog, version } = this;
    const { ids, out } = work;
    const db = await gf.database();
    const s = catalog.settings;
    const pages = emptyCounts();
    const images = emptyCounts();
    const failures: Array<{ url: string; reason: string }> = [];
    const fail = (url: string, reason: string) => {
      if (failures.length < MAX_FAILURES_LISTED) failures.push({ url, reason });
    };
    const total = await this.#total(ids);
    const progress = this.#options.onProgress;

    const missing: Array<{ row: ResourceRow; html: boolean; text: boolean }> = [];
    const held: string[] = [];
    let seen = 0;
    for await (const rows of this.#rows(ids, 500)) {
      for (const row of rows) {
        seen++;
        const [html, text] = await Promise.all([gf.blobs.exists(row.htmlPath), gf.blobs.exists(row.textPath)]);
        if (!html && !text && work.missing === 'absent') {
          work.absent.add(row.id);
          continue;
        }
        pages.checked++;
        held.push(row.id);
        if (html && text) pages.intact++;
        else missing.push({ row, html: !html, text: !text });
      }
      progress?.({ layer: 'file', done: seen, total });
    }
    out.pages = Math.max(out.pages, seen);
    const missingImages: ImageRow[] = [];
    const checkImage = async (img: ImageRow) => {
      images.checked++;
      if (await gf.blobs.exists(img.path)) images.intact++;
      else missingImages.push(img);
    };
    if (ids) {
      // The pictures of the pages held here (an absent page's pictures are with its files).
      const known = new Set<string>();
      for (const id of held) {
        for (const img of await db.resources.imagesOfResource(id)) {
          if (known.has(img.id)) continue;
          known.add(img.id);
          const { alt: _alt, surroundingText: _text, ...row } = img;
          await checkImage(row);
        }
      }
    } else {
      for await (const rows of db.resources.iterateImages(catalog.id, version, 500)) {
        for (const img of rows) await checkImage(img);
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
    const pageFetcher = counted(fetchers.page, out);
    const imageFetcher = counted(fetchers.image, out);
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
    let done = total - missing.length;
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
          if (done % 50 === 0) progress?.({ layer: 'file', done, total });
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
    progress?.({ layer: 'file', done: total, total });
    return { pages, images, failures };
  }

  /** The index and vector channels, opened once per session (written and optimized off the event loop). */
  async #open(layers: Array<'index' | 'vector'>): Promise<OutputChannel[]> {
    if (this.#channels) return this.#channels;
    const gf = this.#gf;
    if (layers.includes('index')) {
      this.#writer = gf.indexWriter();
      this.#index = new IndexOutputChannel(this.#writer);
    }
    if (layers.includes('vector')) this.#vector = vectorOutput(gf, await gf.embedding(), await gf.vectors());
    this.#channels = [this.#index, this.#vector].filter((c): c is IndexOutputChannel | VectorOutputChannel => !!c);
    return this.#channels;
  }

  /** Index documents and vectors built from the files through the crawl's own channels. Never fetches. */
  async #rebuild(
    work: SliceWork,
    layers: Array<'index' | 'vector'>,
  ): Promise<Pick<ReplayReport['layers'], 'index' | 'vector'>> {
    const gf = this.#gf;
    const { catalog, version } = this;
    const db = await gf.database();
    const total = await this.#total(work.ids);
    const channels = await this.#open(layers);
    const extra = layers.includes('index') ? (this.#options.indexChannels ?? []) : [];
    const before = {
      index: this.#index?.counts(),
      vector: this.#vector?.counts(),
      chunks: this.#vector?.cost().chunks,
    };
    let missingText = 0;
    let done = 0;
    let seen = 0;
    for await (const rows of this.#rows(work.ids, 200)) {
      for (const resource of rows) {
        seen++;
        done++;
        if (work.absent.has(resource.id)) continue;
        const text = await gf.blobs.getText(resource.textPath);
        if (text === undefined) {
          if (work.missing === 'absent') work.absent.add(resource.id);
          else missingText++;
          continue;
        }
        const images = (await db.resources.imagesOfResource(resource.id)).map(({ alt, surroundingText, ...row }) => ({
          row,
          alt,
          surroundingText,
        }));
        const page: CrawledPage = { catalog, version, resource, text, images };
        for (const channel of channels) await channel.write(page);
        for (const channel of extra) await channel.write(page);
      }
      for (const channel of channels) await channel.flush();
      for (const channel of extra) await channel.flush();
      this.#options.onProgress?.({ layer: layers[layers.length - 1] as ReplayLayer, done, total });
    }
    work.out.pages = Math.max(work.out.pages, seen);
    if (missingText > 0) {
      gf.log.warn(
        { catalogId: catalog.id, version, missingText },
        'pages without a text file; replay --layers file first',
      );
    }
    const out: Pick<ReplayReport['layers'], 'index' | 'vector'> = {};
    if (this.#index) {
      const c = this.#index.counts();
      out.index = {
        written: c.written - (before.index?.written ?? 0),
        failed: c.failed - (before.index?.failed ?? 0) + missingText,
      };
    }
    if (this.#vector) {
      const c = this.#vector.counts();
      out.vector = {
        written: c.written - (before.vector?.written ?? 0),
        failed: c.failed - (before.vector?.failed ?? 0) + missingText,
        chunks: this.#vector.cost().chunks - (before.chunks ?? 0),
      };
    }
    return out;
  }

  /** Close the layers' channels; optimize the version once (what a publish does) unless the session failed. */
  async #closeChannels(optimize: boolean): Promise<void> {
    const gf = this.#gf;
    const channels = [...(this.#channels ?? []), ...(this.#options.indexChannels ?? [])];
    this.#channels = undefined;
    try {
      for (const channel of channels) await channel.close();
      // What a publish does, so a rebuilt version searches as fast as a crawled one.
      if (optimize && (this.#writer || this.#vector)) {
        await optimizeVersion(gf.log, this.catalog.id, this.version, {
          index: this.#writer,
          vectors: this.#vector ? await gf.vectors() : undefined,
        });
      }
    } finally {
      const writer = this.#writer;
      this.#writer = undefined;
      if (writer && writer !== gf.index()) await writer.close();
    }
  }

  /**
   * After the last slice: optimize the rebuilt version once, rewrite the catalog's entry in catalogs.json
   * (`republish`, through the admin writer), write the report (`reports/{stamp}-replay-{node}.json`) and return it.
   */
  async finish(options: { republish?: boolean } = {}): Promise<ReplayReport> {
    const gf = this.#gf;
    const report = this.report;
    await this.#queue;
    await this.#closeChannels(true);
    if (options.republish ?? true) report.republished = await gf.writer.restorePublished(this.catalog.id, this.version);
    const ended = new Date();
    report.endedAt = ended.toISOString();
    report.elapsedMs = ended.getTime() - this.#started.getTime();
    report.path = keys.report(this.catalog.id, this.version, reportStamp(ended), 'replay', gf.settings.node);
    await gf.blobs.put(report.path, `${JSON.stringify(report, null, 2)}\n`);
    gf.log.info(
      { catalogId: this.catalog.id, version: this.version, layers: this.layers, requests: report.requests },
      'replay done',
    );
    return report;
  }

  /** Release the catalog's run lock (and the writers, when `finish` was not reached). Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#queue;
    try {
      await this.#closeChannels(false);
    } finally {
      await this.#handle.release();
    }
  }
}

interface SliceWork {
  ids: readonly string[] | undefined;
  missing: ReplayMissing;
  absent: Set<string>;
  out: ReplaySliceReport;
}

/** Add one replay's layer counts to another's (slices into a session, members' parts into a cluster's report). */
export function addReplayLayers(into: ReplayReport['layers'], from: ReplayReport['layers']): ReplayReport['layers'] {
  if (from.file) {
    into.file ??= { pages: emptyCounts(), images: emptyCounts(), failures: [] };
    const f = into.file;
    addCounts(f.pages, from.file.pages);
    addCounts(f.images, from.file.images);
    for (const x of from.file.failures) if (f.failures.length < MAX_FAILURES_LISTED) f.failures.push(x);
  }
  if (from.index) {
    into.index ??= { written: 0, failed: 0 };
    const i = into.index;
    i.written += from.index.written;
    i.failed += from.index.failed;
  }
  if (from.vector) {
    into.vector ??= { written: 0, failed: 0, chunks: 0 };
    const v = into.vector;
    v.written += from.vector.written;
    v.failed += from.vector.failed;
    v.chunks += from.vector.chunks;
  }
  return into;
}

function addCounts(into: FileReplayCounts, from: FileReplayCounts): void {
  into.checked += from.checked;
  into.intact += from.intact;
  into.written += from.written;
  into.changed += from.changed;
  into.unreachable += from.unreachable;
}

/** An extractor that counts its requests into the report. */
function counted(e: Extractor, report: { requests: number }): Extractor {
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

/** The layers as a replay runs them (file → index → vector). @throws ConfigError for none, or a name it does not know */
export function normalizeLayers(layers: ReplayLayer[]): ReplayLayer[] {
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
