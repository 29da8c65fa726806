import { CrawlerError } from '../errors.js';
import type { PublishedCatalogs } from '../index/catalog-registry.js';
import type { Catalog, CatalogRef } from '../model.js';
import type { DeleteReport } from './version-eraser.js';

export interface CatalogDeletion {
  deleted: Catalog;
  /** With `purge`: the walk that removed every version first. */
  purge: DeleteReport | null;
}

/** What {@link deleteCatalog} uses of the catalog and version services (`CatalogService`, `VersionService`). */
export interface CatalogDeletionDeps {
  catalogs: {
    get(ref: CatalogRef): Promise<Catalog>;
    delete(catalogId: string): Promise<unknown>;
  };
  versions: {
    existing(catalog: Catalog): Promise<number[]>;
    delete(ref: CatalogRef, options: { all: true; force: true; purge: true }): Promise<DeleteReport>;
  };
  published: PublishedCatalogs;
}

/**
 * Delete a catalog definition. A catalog still holding versions is refused unless `purge`, which first deletes every
 * version with all its data (vector → index → file → db); the definition goes only once its data is gone.
 */
export async function deleteCatalog(
  deps: CatalogDeletionDeps,
  ref: CatalogRef,
  options: { purge?: boolean | undefined } = {},
): Promise<CatalogDeletion> {
  const c = await deps.catalogs.get(ref);
  const versions = await deps.versions.existing(c);
  if (!options.purge && versions.length > 0) {
    throw new CrawlerError('CONFLICT', `catalog "${c.name}" still holds versions ${versions.join(', ')}`, {
      fix: 'add --purge (purge=true over HTTP) to delete them with it, or delete them first',
    });
  }
  const purge = options.purge
    ? await deps.versions.delete({ id: c.id }, { all: true, force: true, purge: true })
    : null;
  const failed = purge?.results.find((r) => r.error);
  if (failed) {
    throw new CrawlerError('STORAGE', `deleting version ${failed.version} (${failed.layer}) failed: ${failed.error}`, {
      fix: 'fix that and run the same command again; the definition is kept until its data is gone',
    });
  }
  await deps.catalogs.delete(c.id);
  await deps.published.remove(c.id);
  return { deleted: c, purge };
}
