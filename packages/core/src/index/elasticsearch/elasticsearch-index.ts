import type { Client } from '@elastic/elasticsearch';
import type {
  IndexCatalogStats,
  IndexDocument,
  IndexImage,
  IndexStats,
  OptimizeReport,
  PictureQuery,
  PictureResult,
  SearchIndex,
  WordsQuery,
  WordsResult,
} from '../search-index.js';
import { uniquePictures } from '../sqlite-fts-index.js';
import { bulkIndex, type EsBulkOptions, Refresher } from './es-bulk.js';
import { checkEs, type EsConnectionOptions, esCall, esClient, isNotFound, LONG_REQUEST_MS } from './es-client.js';
import {
  type AnalysisPlugins,
  analysisPlugins,
  catalogIndexBody,
  catalogIndexName,
  catalogOfIndex,
  catalogVersionKey,
  documentId,
  type EsPageSource,
  missingPluginWarnings,
  toEsDocument,
} from './es-mapping.js';
import {
  type EsPictureHit,
  type EsPictureSource,
  mergePictureRecords,
  pictureIndexBody,
  pictureIndexName,
  pictureRecordIds,
  pictureSearchRequest,
  picturesOfPageQuery,
  toPictureHit,
  withoutPage,
} from './es-pictures.js';
import {
  type EsHit,
  highlightSpec,
  nextCursorOf,
  queryParts,
  searchFields,
  searchRequest,
  toWordsHit,
  wordsQuery,
} from './es-query.js';

export interface ElasticsearchIndexOptions extends EsConnectionOptions {
  /** GF_INDEX_PREFIX: each catalog is the index `{prefix}-{catalogId}`. */
  prefix: string;
  /** bm25 weights of title, text and image text (boosts). @default [10, 1, 0.5] */
  weights?: readonly [number, number, number] | undefined;
  /** How bulk writes are cut and paced. */
  bulk?: EsBulkOptions | undefined;
  /** Told of what leaves search less good without failing it (a missing language plugin), once per catalog. */
  onWarning?: ((message: string) => void) | undefined;
}

/**
 * The full-text index on an Elasticsearch server: one index per catalog (`{prefix}-{catalogId}`), each page a
 * self-contained document of one version (`_id` `version:resourceId`, the version filter on `catalogVersion`).
 * Every member of a cluster reads and writes the same server, so nothing is replicated.
 */
export class ElasticsearchIndex implements SearchIndex {
  readonly name = 'elasticsearch';
  readonly url: string;
  readonly #options: ElasticsearchIndexOptions;
  readonly #client: Client;
  readonly #refresher: Refresher;
  #plugins: Promise<AnalysisPlugins> | undefined;
  /** Missing-plugin warnings per catalog, each said once and given again by optimize. */
  readonly #warnings = new Map<string, Set<string>>();

  constructor(options: ElasticsearchIndexOptions) {
    this.#options = { ...options };
    this.url = options.url;
    this.#client = esClient(options);
    this.#refresher = new Refresher(this.#client, this.url);
  }

  /**
   * One request with a short deadline (the CLI and `serve` call it before anything else).
   * @throws ConfigError GF_ES_URL when nothing answers there
   */
  check(): Promise<void> {
    return checkEs(this.#options);
  }

  #index(catalogId: string): string {
    return catalogIndexName(this.#options.prefix, catalogId);
  }

  /** The server's analysis plugins (asked once). */
  plugins(): Promise<AnalysisPlugins> {
    this.#plugins ??= esCall(this.url, 'list its plugins', async () => {
      const rows = (await this.#client.cat.plugins({ format: 'json' })) as unknown as Array<{ component?: string }>;
      return analysisPlugins(rows.map((r) => r.component ?? ''));
    });
    this.#plugins.catch(() => {
      this.#plugins = undefined;
    });
    return this.#plugins;
  }

  /**
   * Make the catalog's index when it is missing. Asked before every write, not remembered: an index purged by another
   * process meanwhile must not come back through the bulk request's auto-creation, without the mappings.
   */
  async #ensure(index: string, body = catalogIndexBody): Promise<void> {
    const plugins = await this.plugins();
    await esCall(this.url, `create the index ${index}`, async () => {
      const exists = await this.#client.indices.exists({ index });
      if (!exists) {
        try {
          await this.#client.indices.create({ index, ...body(plugins) });
        } catch (err) {
          const type = (err as { body?: { error?: { type?: string } } }).body?.error?.type;
          if (type !== 'resource_already_exists_exception') throw err;
        }
      }
    });
  }

  async upsert(docs: IndexDocument[]): Promise<void> {
    const byCatalog = new Map<string, IndexDocument[]>();
    for (const d of docs) {
      const list = byCatalog.get(d.catalogId) ?? [];
      list.push(d);
      byCatalog.set(d.catalogId, list);
    }
    for (const [catalogId, list] of byCatalog) {
      const index = this.#index(catalogId);
      await this.#ensure(index);
      await this.#warnMissingPlugins(catalogId, list);
      const body = list.map((d) => ({ id: documentId(d.version, d.id), source: toEsDocument(d) }));
      await bulkIndex(this.#client, this.url, index, body, this.#options.bulk);
      this.#refresher.written(index);
      await this.#upsertPictures(catalogId, list);
    }
  }

  /**
   * The picture records of these pages (pictures search): the records held are read by id (a realtime get, no
   * refresh), merged as the embedded index merges them, and written back. One writer per catalog at a time, as a
   * crawl's: two processes writing pages of the same picture at once may each keep only their own page.
   */
  async #upsertPictures(catalogId: string, docs: IndexDocument[]): Promise<void> {
    const ids = pictureRecordIds(catalogId, docs);
    if (ids.length === 0) return;
    const index = pictureIndexName(this.#index(catalogId));
    await this.#ensure(index, pictureIndexBody);
    const known = new Map<string, EsPictureSource>();
    for (let i = 0; i < ids.length; i += 1000) {
      const r = await esCall(this.url, `read picture records of ${index}`, () =>
        this.#client.mget<EsPictureSource>({ index, ids: ids.slice(i, i + 1000) }),
      );
      for (const d of r.docs) if ('found' in d && d.found && d._source) known.set(d._id, d._source);
    }
    const records = mergePictureRecords(catalogId, docs, known);
    const body = records.map((r) => ({ id: r.id, source: r }));
    await bulkIndex(this.#client, this.url, index, body, this.#options.bulk);
    this.#refresher.written(index);
  }

  /** Takes a page off the picture records of its version that list it; a record left with no page goes. */
  async #removePageFromPictures(catalogId: string, version: number, resourceId: string): Promise<void> {
    const index = pictureIndexName(this.#index(catalogId));
    await this.#refresher.refresh([index]);
    const r = await esCall(this.url, `read the picture records of page ${resourceId} in ${index}`, () =>
      this.#client.search<EsPictureSource>({
        index,
        ignore_unavailable: true,
        allow_no_indices: true,
        query: picturesOfPageQuery(catalogId, version, resourceId),
        size: 10_000,
      }),
    );
    const kept: EsPictureSource[] = [];
    const gone: string[] = [];
    for (const h of r.hits.hits) {
      if (!h._source) continue;
      const next = withoutPage(h._source, resourceId);
      if (next) kept.push(next);
      else gone.push(h._source.id);
    }
    await bulkIndex(
      this.#client,
      this.url,
      index,
      kept.map((k) => ({ id: k.id, source: k })),
      this.#options.bulk,
    );
    if (gone.length > 0)
      await esCall(this.url, `delete ${gone.length} picture records of ${index}`, () =>
        this.#client.deleteByQuery({ index, query: { ids: { values: gone } }, refresh: true, conflicts: 'proceed' }),
      );
    if (kept.length > 0) this.#refresher.written(index);
  }

  async #warnMissingPlugins(catalogId: string, docs: IndexDocument[]): Promise<void> {
    const said = this.#warnings.get(catalogId) ?? new Set<string>();
    for (const w of missingPluginWarnings(
      docs.map((d) => `${d.title} ${d.text.slice(0, 2000)}`),
      await this.plugins(),
    )) {
      if (said.has(w)) continue;
      said.add(w);
      this.#options.onWarning?.(`${w} [catalog ${catalogId}]`);
    }
    if (said.size) this.#warnings.set(catalogId, said);
  }

  /** A count of the matches of `query` in one catalog's index (0 when there is no index). */
  async #count(catalogId: string, query: Record<string, unknown>, doing: string): Promise<number> {
    const index = this.#index(catalogId);
    await this.#refresher.refresh([index]);
    return esCall(this.url, doing, async () => {
      try {
        return (await this.#client.count({ index, query })).count;
      } catch (err) {
        if (isNotFound(err)) return 0;
        throw err;
      }
    });
  }

  /** Delete by query in one catalog's index (or its picture index), refreshed after; the documents deleted. */
  async #deleteBy(catalogId: string, query: Record<string, unknown>, doing: string, pictures = false): Promise<number> {
    const index = pictures ? pictureIndexName(this.#index(catalogId)) : this.#index(catalogId);
    await this.#refresher.refresh([index]);
    return esCall(this.url, doing, async () => {
      try {
        const r = await this.#client.deleteByQuery(
          { index, query, refresh: true, conflicts: 'proceed' },
          { requestTimeout: LONG_REQUEST_MS },
        );
        return r.deleted ?? 0;
      } catch (err) {
        if (isNotFound(err)) return 0;
        throw err;
      }
    });
  }

  #versionQuery(catalogId: string, version: number): Record<string, unknown> {
    return { term: { catalogVersion: catalogVersionKey(catalogId, version) } };
  }

  async deleteVersion(catalogId: string, version: number): Promise<number> {
    const doing = `delete version ${version} of ${this.#index(catalogId)}`;
    const query = this.#versionQuery(catalogId, version);
    const deleted = await this.#deleteBy(catalogId, query, doing);
    await this.#deleteBy(catalogId, query, `${doing} (picture records)`, true);
    return deleted;
  }

  countVersion(catalogId: string, version: number): Promise<number> {
    const doing = `count version ${version} of ${this.#index(catalogId)}`;
    return this.#count(catalogId, this.#versionQuery(catalogId, version), doing);
  }

  async deleteResource(catalogId: string, version: number, resourceId: string, dryRun = false): Promise<number> {
    const query = {
      bool: { filter: [this.#versionQuery(catalogId, version), { term: { id: resourceId } }] },
    };
    const doing = `delete page ${resourceId} of version ${version} of ${this.#index(catalogId)}`;
    if (dryRun) return this.#count(catalogId, query, doing);
    await this.#removePageFromPictures(catalogId, version, resourceId);
    return this.#deleteBy(catalogId, query, doing);
  }

  async purge(catalogId: string): Promise<void> {
    const index = this.#index(catalogId);
    for (const name of [index, pictureIndexName(index)]) {
      await esCall(this.url, `delete the index ${name}`, () =>
        this.#client.indices.delete({ index: name, ignore_unavailable: true }),
      );
      this.#refresher.forget(name);
    }
  }

  /**
   * Pictures search over the catalogs' picture records of the versions in scope, as the embedded index answers it:
   * any of the words, ranked by bm25 over alt text (×6), file name words (×4), captions (×2) and the titles of the
   * pages that show it (×1), ties by id, paged by offset (at most 1,000); a blank query lists the pictures, those on
   * the most pages first. Several catalogs are one request (dfs), so their scores compare.
   */
  async searchPictures(query: PictureQuery): Promise<PictureResult> {
    const request = pictureSearchRequest(query);
    if (!request || query.scopes.length === 0) return { results: [], total: 0 };
    const indices = [...new Set(query.scopes.map((s) => pictureIndexName(this.#index(s.catalogId))))];
    await this.#refresher.refresh(indices);
    const r = await esCall(this.url, `search pictures in ${indices.join(', ')}`, () =>
      this.#client.search<EsPictureSource>({
        index: indices,
        ignore_unavailable: true,
        allow_no_indices: true,
        search_type: 'dfs_query_then_fetch',
        ...request,
      }),
    );
    const total = typeof r.hits.total === 'number' ? r.hits.total : (r.hits.total?.value ?? 0);
    const blank = query.q.trim() === '';
    return { results: (r.hits.hits as EsPictureHit[]).map((h) => toPictureHit(h, blank)), total };
  }

  async search(query: WordsQuery): Promise<WordsResult> {
    const parts = queryParts(query.q);
    if (parts.length === 0 || query.scopes.length === 0) {
      if (query.cursor) searchRequest({ query: {}, size: 0, cursor: query.cursor });
      return { results: [], total: 0, nextCursor: null };
    }
    const indices = [...new Set(query.scopes.map((s) => this.#index(s.catalogId)))];
    await this.#refresher.refresh(indices);
    const plugins = await this.plugins();
    const fields = searchFields(plugins, this.#options.weights);
    const preferDetail = query.preferDetailPages !== false;
    const highlightFirst = query.highlightFirst ?? Number.POSITIVE_INFINITY;
    const highlight = highlightFirst > 0 ? highlightSpec(plugins) : undefined;
    const modes: Array<'all' | 'any'> = query.match === 'any' ? ['any'] : parts.length > 1 ? ['all', 'any'] : ['all'];
    for (const mode of modes) {
      const request = searchRequest({
        query: wordsQuery(parts, query.scopes, mode, preferDetail, fields),
        size: query.size,
        cursor: query.cursor,
        highlight,
      });
      const r = await esCall(this.url, `search ${indices.join(', ')}`, () =>
        this.#client.search<EsPageSource>({
          index: indices,
          ignore_unavailable: true,
          allow_no_indices: true,
          // bm25's statistics over every catalog in scope, so scores of two catalogs compare.
          search_type: 'dfs_query_then_fetch',
          ...request,
        }),
      );
      const total = typeof r.hits.total === 'number' ? r.hits.total : (r.hits.total?.value ?? 0);
      if (total === 0 && mode === 'all' && modes.length > 1) continue;
      const hits = r.hits.hits as EsHit[];
      return {
        results: hits.map((h, i) => toWordsHit(h, i < highlightFirst)),
        total,
        nextCursor: nextCursorOf(hits, query.size, total, query.cursor ? 0 : hits.length),
        match: mode,
      };
    }
    return { results: [], total: 0, nextCursor: null };
  }

  /**
   * The pictures of pages, read from their documents (a meaning hit's page has none in its vector payload): by
   * resource id, deduplicated by image id; pages the index does not hold are left out.
   */
  async picturesOfPages(pages: Array<{ catalogId: string; id: string }>): Promise<Map<string, IndexImage[]>> {
    const out = new Map<string, IndexImage[]>();
    const byCatalog = new Map<string, string[]>();
    for (const p of pages) byCatalog.set(p.catalogId, [...(byCatalog.get(p.catalogId) ?? []), p.id]);
    for (const [catalogId, ids] of byCatalog) {
      const index = this.#index(catalogId);
      await this.#refresher.refresh([index]);
      const r = await esCall(this.url, `read the pictures of ${ids.length} pages of ${index}`, () =>
        this.#client.search<Pick<EsPageSource, 'id' | 'images'>>({
          index,
          ignore_unavailable: true,
          allow_no_indices: true,
          query: { terms: { id: ids } },
          _source: ['id', 'images'],
          size: Math.min(10_000, ids.length * 4),
        }),
      );
      for (const h of r.hits.hits) {
        const s = h._source;
        if (s) out.set(s.id, uniquePictures([...(out.get(s.id) ?? []), ...(s.images ?? [])]));
      }
    }
    return out;
  }

  /** The catalog indices of this prefix. */
  async #catalogIndices(): Promise<Array<{ index: string; catalogId: string; bytes: number }>> {
    const rows = await esCall(this.url, `list the indices ${this.#options.prefix}-*`, () =>
      this.#client.cat.indices({ index: `${this.#options.prefix}-*`, format: 'json', bytes: 'b' }),
    );
    const found: Array<{ index: string; catalogId: string; bytes: number }> = [];
    for (const row of rows as Array<{ index?: string; 'store.size'?: string }>) {
      const catalogId = row.index ? catalogOfIndex(this.#options.prefix, row.index) : undefined;
      if (row.index && catalogId) found.push({ index: row.index, catalogId, bytes: Number(row['store.size'] ?? 0) });
    }
    return found;
  }

  async stats(): Promise<IndexStats> {
    await this.#refresher.refresh();
    const found = await this.#catalogIndices();
    const catalogs: IndexCatalogStats[] = [];
    for (const { index, catalogId, bytes } of found) {
      const r = await esCall(this.url, `count the versions of ${index}`, () =>
        this.#client.search({
          index,
          size: 0,
          aggs: { versions: { terms: { field: 'version', size: 10_000, order: { _key: 'asc' } } } },
        }),
      );
      const buckets =
        (r.aggregations?.versions as { buckets?: Array<{ key: number; doc_count: number }> } | undefined)?.buckets ??
        [];
      const versions = buckets.map((b) => ({ version: Number(b.key), documents: b.doc_count }));
      const documents = versions.reduce((a, v) => a + v.documents, 0);
      catalogs.push({ catalogId, versions, documents, ...(bytes > 0 ? { bytes } : {}) });
    }
    catalogs.sort((a, b) => a.catalogId.localeCompare(b.catalogId));
    const bytes = found.reduce((a, f) => a + f.bytes, 0);
    return { name: this.name, catalogs, ...(bytes > 0 ? { bytes } : {}) };
  }

  /** Refresh the catalog's index so the version is visible to every reader; the missing plugins as warnings. */
  async optimize(catalogId: string, version: number): Promise<OptimizeReport> {
    const started = performance.now();
    const index = this.#index(catalogId);
    this.#refresher.written(index);
    await this.#refresher.refresh([index]);
    return {
      catalogId,
      version,
      ms: performance.now() - started,
      warnings: [...(this.#warnings.get(catalogId) ?? [])],
      details: { index, refreshed: true },
    };
  }

  /**
   * The catalog's index answers (an index that does not exist yet is fine: the first write makes it).
   * @throws ConfigError GF_ES_URL when nothing answers
   */
  async verify(catalogId: string): Promise<void> {
    const index = this.#index(catalogId);
    await esCall(this.url, `read the index ${index}`, () => this.#client.indices.exists({ index }));
  }

  async close(): Promise<void> {
    try {
      await this.#refresher.refresh();
    } finally {
      await this.#client.close();
    }
  }
}
