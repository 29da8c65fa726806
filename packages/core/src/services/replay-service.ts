import { optimizeVersion } from '../admin/optimize-version.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import { assertImageModel, pictureImageEmbedder } from '../compose/image-assembly.js';
import { vectorOutput } from '../compose/run-assembly.js';
import { reportStamp } from '../engine/run-report.js';
import { CrawlerError } from '../errors.js';
import type { SearchIndex } from '../index/search-index.js';
import { keys } from '../layout.js';
import type { Catalog, ResourceRow } from '../model.js';
import { IndexOutputChannel } from '../outputs/index-output-channel.js';
import type { CrawledPage, OutputChannel } from '../outputs/output-channel.js';
import type { VectorOutputChannel } from '../outputs/vector-output-channel.js';
import type { RunHandle } from '../runs/run-registry.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import { replayFiles } from './replay-files.js';
import {
  addReplayLayers,
  normalizeLayers,
  type ReplayLayer,
  type ReplayOptions,
  type ReplayReport,
  type ReplaySessionOptions,
  type ReplaySlice,
  type ReplaySliceReport,
  type SliceWork,
} from './replay-report.js';
import { assertNotRunning } from './version-service.js';

export {
  addReplayLayers,
  type FileReplayCounts,
  normalizeLayers,
  type ReplayLayer,
  type ReplayMissing,
  type ReplayOptions,
  type ReplayProgress,
  type ReplayReport,
  type ReplaySessionOptions,
  type ReplaySlice,
  type ReplaySliceReport,
} from './replay-report.js';

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
    // A text+image catalog's vectors need the image model: refused here, before any layer is rewritten.
    if (layers.includes('vector')) assertImageModel(gf, { contentMode: catalog.settings.contentMode });
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
    if (this.layers.includes('file')) {
      out.layers.file = await replayFiles({
        gf: this.#gf,
        catalog: this.catalog,
        version: this.version,
        work,
        total: await this.#total(work.ids),
        rows: (batch) => this.#rows(work.ids, batch),
        onProgress: this.#options.onProgress,
      });
    }
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

  /** The index and vector channels, opened once per session (written and optimized off the event loop). */
  async #open(layers: Array<'index' | 'vector'>): Promise<OutputChannel[]> {
    if (this.#channels) return this.#channels;
    const gf = this.#gf;
    if (layers.includes('index')) {
      this.#writer = gf.indexWriter();
      this.#index = new IndexOutputChannel(this.#writer);
    }
    if (layers.includes('vector')) {
      // A text+image catalog's pictures get their image vectors again (refused, in one line, without the model).
      const images = await pictureImageEmbedder(gf, { contentMode: this.catalog.settings.contentMode });
      this.#vector = vectorOutput(gf, await gf.embedding(), await gf.vectors(), undefined, images);
    }
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
