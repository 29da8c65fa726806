import type { Catalog, ImageRow, ReportRow, ResourceImageRow, ResourceRow } from '../model.js';

/** Catalog definitions (crawler_catalog). */
export interface CatalogStore {
  create(catalog: Catalog): Promise<void>;
  update(catalog: Catalog): Promise<void>;
  get(id: string): Promise<Catalog | undefined>;
  findByName(name: string): Promise<Catalog | undefined>;
  findByUrl(url: string): Promise<Catalog[]>;
  list(): Promise<Catalog[]>;
  delete(id: string): Promise<boolean>;
}

/** Crawl metadata (crawler_resource, crawler_image, crawler_resource_image, crawler_report). No page bodies. */
export interface ResourceRecordStore {
  /** Insert or replace (same id = same url in the same version), in one transaction. */
  saveResources(rows: ResourceRow[]): Promise<void>;
  saveImages(rows: ImageRow[]): Promise<void>;
  saveResourceImages(rows: ResourceImageRow[]): Promise<void>;
  getResource(id: string): Promise<ResourceRow | undefined>;
  findResourceByUrlHash(catalogId: string, version: number, urlHash: string): Promise<ResourceRow | undefined>;
  /** Stream a version's resources in id order, `batch` rows at a time. */
  iterateResources(catalogId: string, version: number, batch?: number): AsyncIterable<ResourceRow[]>;
  iterateImages(catalogId: string, version: number, batch?: number): AsyncIterable<ImageRow[]>;
  imagesOfResource(resourceId: string): Promise<Array<ImageRow & { alt: string; surroundingText: string }>>;
  count(
    catalogId: string,
    version: number,
  ): Promise<{ resources: number; images: number; resourceImages: number; reports: number }>;
  /** Versions that have any rows, ascending. */
  versions(catalogId: string): Promise<number[]>;
  /** delete from t where catalog_id = ? and version = ? — no join; returns rows removed per table. */
  deleteVersion(catalogId: string, version: number): Promise<Record<string, number>>;
  /** One crawler_report row per version (replaced by later runs of the same version). */
  saveReport(row: ReportRow): Promise<void>;
  getReport(catalogId: string, version: number): Promise<ReportRow | undefined>;
  listReports(catalogId: string): Promise<ReportRow[]>;
}

/** Both stores on one database, with its lifecycle. */
export interface RecordDatabase {
  readonly kind: 'sqlite' | 'postgresql';
  readonly catalogs: CatalogStore;
  readonly resources: ResourceRecordStore;
  /** Apply `schema/` migrations not applied yet. Idempotent. */
  migrate(): Promise<{ applied: string[] }>;
  close(): Promise<void>;
}
