import { deleteCatalog } from '../admin/catalog-deletion.js';
import type { ComponentFactory } from '../compose/component-factory.js';
import { errorMessage } from '../errors.js';
import type { Catalog, RunReport } from '../model.js';
import type { CatalogService } from './catalog-service.js';
import { VersionService } from './version-service.js';

/**
 * A crawl that created its catalog and reached nothing (the site never answered: no HTTP answer, nothing saved)
 * leaves nothing behind: the catalog it created is removed with its version, and the report's note says so. Running
 * it again, or crawling another part of the host, then starts clean instead of meeting a catalog of that name.
 * When the removal fails the catalog stays, and the note says how to remove it.
 */
export async function removeUnreached(
  f: ComponentFactory,
  catalogs: CatalogService,
  catalog: Catalog,
  report: RunReport,
): Promise<void> {
  if (report.ending.withheld?.cause !== 'site-unreachable' || report.produced.saved > 0) return;
  const said = report.ending.note ? `${report.ending.note}; ` : '';
  try {
    const versions = new VersionService(f, async () => catalogs);
    await deleteCatalog({ catalogs, versions, published: f.published }, { id: catalog.id }, { purge: true });
  } catch (err) {
    f.log.warn({ err, catalogId: catalog.id }, 'the catalog of a crawl that reached nothing could not be removed');
    report.ending.note =
      `${said}nothing was reached, and the catalog "${catalog.name}" it created could not be removed ` +
      `(${errorMessage(err)}): greenfinger catalog delete --name "${catalog.name}" --purge`;
    return;
  }
  // The report was stored under the catalog: it went with it.
  delete report.path;
  report.ending.note = `${said}nothing was reached, so the catalog "${catalog.name}" this crawl created was removed`;
}
