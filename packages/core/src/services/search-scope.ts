import type { ComponentFactory } from '../compose/component-factory.js';
import { CrawlerError } from '../errors.js';
import type { PublishedCatalog } from '../index/catalog-registry.js';
import { CATALOG_CATS } from '../settings/catalog-settings.js';

/** A catalog search reads, and the version it reads of it (words; meaning reads `meaningVersionOf`). */
export type ScopedCatalog = PublishedCatalog & { version: number };

/** What narrows the catalogs a search reads. */
export interface ScopeRequest {
  /** Catalog ids or names; all published catalogs when empty. */
  catalogs?: string[] | undefined;
  /** Only catalogs of this category (`settings.cat`, kept in the published record). */
  cat?: string | undefined;
  /**
   * Read this kept version instead of the published one (exactly one catalog): every mode answers from it alone.
   * A version still being written is read only when named here.
   */
  version?: number | undefined;
}

/**
 * The catalogs a search reads, from the published-catalog record (never the database): the ones named, narrowed to a
 * category; each at its published version, or at the kept version asked for.
 * @throws CrawlerError NOT_FOUND for a catalog, category or version that is not there (naming what is),
 *   BAD_INPUT for a category that does not exist or a version without exactly one catalog
 */
export async function searchScopes(gf: ComponentFactory, req: ScopeRequest = {}): Promise<ScopedCatalog[]> {
  const all = await gf.published.list();
  let chosen = all;
  const names = req.catalogs ?? [];
  if (names.length > 0) {
    chosen = [];
    for (const n of names) {
      const found = all.find((c) => c.catalogId === n || c.name === n);
      if (!found) {
        throw new CrawlerError('NOT_FOUND', `no published catalog "${n}"`, {
          fix: all.length
            ? `published: ${all.map((c) => c.name).join(', ')}`
            : 'crawl a site first: greenfinger crawl --url <site>',
        });
      }
      chosen.push(found);
    }
  }
  if (req.cat !== undefined) chosen = ofCategory(chosen, req.cat);
  if (req.version === undefined) {
    return chosen.filter((c) => c.searchVersion >= 0).map((c) => ({ ...c, version: c.searchVersion }));
  }
  return [await atVersion(gf, chosen, names, req.version)];
}

/** The catalogs filed under `cat` (a record written before categories were kept counts as the default, `other`). */
function ofCategory(chosen: PublishedCatalog[], cat: string): PublishedCatalog[] {
  if (!(CATALOG_CATS as readonly string[]).includes(cat)) {
    throw new CrawlerError('BAD_INPUT', `cat "${cat}" is not a category`, {
      fix: `use one of: ${CATALOG_CATS.join(', ')}`,
    });
  }
  const found = chosen.filter((c) => (c.cat ?? 'other') === cat);
  if (found.length === 0) {
    const cats = [...new Set(chosen.map((c) => c.cat ?? 'other'))].sort();
    throw new CrawlerError('NOT_FOUND', `no published catalog of category "${cat}"`, {
      fix: cats.length
        ? `categories published: ${cats.join(', ')}`
        : 'crawl a site first: greenfinger crawl --url <site>',
    });
  }
  return found;
}

/**
 * One catalog read at `version`: a version the record keeps, or one whose documents the index holds (a rebuild still
 * being written, read because it is named). Meaning reads the same version, never the published one's vectors.
 */
async function atVersion(
  gf: ComponentFactory,
  chosen: PublishedCatalog[],
  names: string[],
  version: number,
): Promise<ScopedCatalog> {
  if (!Number.isInteger(version) || version < 0) {
    throw new CrawlerError('BAD_INPUT', `version ${version} is not a version`, {
      fix: 'give a version number from 0 (greenfinger versions --id <catalog> lists them)',
    });
  }
  const only = chosen[0];
  if (names.length !== 1 || chosen.length !== 1 || !only) {
    throw new CrawlerError('BAD_INPUT', `version ${version} needs exactly one catalog to search`, {
      fix: 'name the catalog: --catalog <idOrName> (API: catalog=<idOrName>)',
    });
  }
  const stored = only.versions.includes(version) || (await gf.index().countVersion(only.catalogId, version)) > 0;
  if (!stored) {
    throw new CrawlerError('NOT_FOUND', `catalog "${only.name}" has no version ${version}`, {
      fix: only.versions.length
        ? `stored versions: ${only.versions.join(', ')} (published: ${only.searchVersion})`
        : 'it keeps no version yet: crawl it first',
    });
  }
  const { meaningVersion: _m, embedding, ...rest } = only;
  return {
    ...rest,
    searchVersion: version,
    ...(embedding?.version === version ? { embedding } : {}),
    version,
  };
}
