import { CrawlerError, errorMessage } from '../errors.js';
import type { ResourceRow } from '../model.js';
import { markdownPath } from '../outputs/page-markdown.js';
import type { LedgerRow } from '../storage/record-store.js';
import type { NodeStores } from './node-stores.js';
import { DELETE_ORDER, type DeleteLayer } from './version-eraser.js';

/** What one layer held of one url's page (or, on a dry run, holds). */
export interface UrlLayerCount {
  layer: DeleteLayer;
  /** Points, documents, files, rows. */
  count: number;
}

/**
 * Remove one url's page from its version through the store families, in the delete order (vector → index → file →
 * db: never a searchable pointer to bytes already gone), then mark its ledger row `deleted`, so the url is not queued
 * again in this version. A dry run counts and writes nothing. The first failing layer stops the walk (what follows it
 * is kept and the row is not marked, so the delete can be run again).
 * @throws CrawlerError STORAGE naming the layer that failed
 */
export async function eraseUrl(
  f: NodeStores,
  row: LedgerRow,
  dryRun: boolean,
  now = new Date().toISOString(),
  options: {
    /** @default DELETE_ORDER (without db the ledger row is not marked either) */
    layers?: readonly DeleteLayer[];
    /** The page's files when the database no longer holds its row (another writer deleted it). */
    resource?: ErasedPage['resource'];
  } = {},
): Promise<UrlLayerCount[]> {
  const db = await f.database();
  const resource = (await db.resources.getResource(row.id)) ?? options.resource;
  const layers = await erasePage(f, { ...row, resource }, dryRun, options.layers);
  if (!dryRun && (options.layers ?? DELETE_ORDER).includes('db')) {
    await db.ledger.record([{ ...row, state: 'deleted', reason: `deleted by hand on ${now}`, updatedAt: now }]);
  }
  return layers;
}

/** The page {@link erasePage} removes: its resource id in its version, and its resource row when there is one. */
export interface ErasedPage {
  catalogId: string;
  version: number;
  /** The resource id (= the url's ledger id). */
  id: string;
  url: string;
  /** Its crawler_resource row (its files' keys); undefined when the db no longer holds it. */
  resource: Pick<ResourceRow, 'htmlPath' | 'textPath'> | undefined;
}

/**
 * Remove one page from every layer of its version, in the delete order (vector → index → file → db), and nothing
 * else: the ledger row is the caller's (a url deleted by hand is marked `deleted`; an orphan or a page gone at a
 * session's end is not refused later). A dry run counts and writes nothing.
 * @throws CrawlerError STORAGE naming the layer that failed (the layers before it are done)
 */
export async function erasePage(
  f: NodeStores,
  page: ErasedPage,
  dryRun: boolean,
  only: readonly DeleteLayer[] = DELETE_ORDER,
): Promise<UrlLayerCount[]> {
  const { catalogId, version, id, resource } = page;
  const db = await f.database();
  const byLayer: Record<DeleteLayer, () => Promise<number>> = {
    vector: () => f.vectorFamily().deleteResource(catalogId, version, id, dryRun),
    index: () => f.index().deleteResource(catalogId, version, id, dryRun),
    file: async () => {
      let count = 0;
      const files = resource ? [resource.htmlPath, resource.textPath, markdownPath(resource.textPath)] : [];
      for (const key of files) {
        if (!key) continue;
        count += (dryRun ? await f.blobs.stat(key) : await f.blobs.deletePrefix(key)).objects;
      }
      return count;
    },
    db: async () => Object.values(await db.resources.deleteResource(id, dryRun)).reduce((a, b) => a + b, 0),
  };
  const layers: UrlLayerCount[] = [];
  for (const layer of DELETE_ORDER) {
    if (!only.includes(layer)) continue;
    try {
      layers.push({ layer, count: await byLayer[layer]() });
    } catch (err) {
      f.log.warn({ err, catalogId, version, url: page.url, layer }, 'url delete stopped');
      throw new CrawlerError('STORAGE', `deleting ${page.url}: the ${layer} layer failed: ${errorMessage(err)}`, {
        cause: err,
        fix: 'fix the store, then delete the url again (the layers before it are already done)',
      });
    }
  }
  return layers;
}
