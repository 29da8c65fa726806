import { CrawlerError } from '../errors.js';
import type { PublishedCatalogs } from '../index/catalog-registry.js';
import type { Catalog } from '../model.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import type { DeleteReport, VersionService } from './version-service.js';

export interface CatalogDeletion {
  deleted: Catalog;
  /** With `purge`: the walk that removed every version first. */
  purge: DeleteReport | null;
}

/**
 * Delete a catalog definition. A catalog still holding versions is refused unless `purge`, which first deletes every
 * version with all its data (vector → index → file → db); the definition goes only once its data is gone.
 */
export async function deleteCatalog(
  deps: { catalogs: CatalogService; versions: VersionService; published: PublishedCatalogs },
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
