import { defaultCatalogSettings } from '../config.js';
import { CrawlerError } from '../errors.js';
import type { Catalog, ImageRow, ReportRow, ResourceImageRow, ResourceRow } from '../model.js';
import type { LedgerRow } from './record-store.js';

/** How a value is stored: `time` is an ISO-8601 instant, `json` is JSON text, `bool` is 0/1 in SQLite. */
export type ColumnKind = 'text' | 'int' | 'float' | 'time' | 'json' | 'bool';

export interface Column<Row> {
  readonly column: string;
  readonly key: keyof Row & string;
  readonly kind: ColumnKind;
}

/** The columns of one table, in the order of schema.prisma, with the key the upsert conflicts on. */
export interface TableSpec<Row> {
  readonly table: string;
  readonly columns: readonly Column<Row>[];
  readonly conflict: readonly string[];
  /** Completes a row read back (e.g. catalog settings stored before a field existed get its default). */
  readonly read?: (row: Row) => Row;
}

function col<Row>(column: string, key: keyof Row & string, kind: ColumnKind = 'text'): Column<Row> {
  return { column, key, kind };
}

export const CATALOG: TableSpec<Catalog> = {
  table: 'crawler_catalog',
  conflict: ['id'],
  read: (catalog) => ({ ...catalog, settings: { ...defaultCatalogSettings, ...catalog.settings } }),
  columns: [
    col('id', 'id'),
    col('name', 'name'),
    col('url', 'url'),
    col('start_url', 'startUrl'),
    col('settings', 'settings', 'json'),
    col('index_version', 'indexVersion', 'int'),
    col('search_version', 'searchVersion', 'int'),
    col('running_state', 'runningState'),
    col('created_at', 'createdAt', 'time'),
    col('updated_at', 'updatedAt', 'time'),
  ],
};

export const RESOURCE: TableSpec<ResourceRow> = {
  table: 'crawler_resource',
  conflict: ['id'],
  // A page saved without its response (before migration 0005, or replayed) reads back without the key.
  read: (row) => {
    if (row.response == null) delete row.response;
    return row;
  },
  columns: [
    col('id', 'id'),
    col('catalog_id', 'catalogId'),
    col('version', 'version', 'int'),
    col('url', 'url'),
    col('url_hash', 'urlHash'),
    col('title', 'title'),
    col('content_type', 'contentType'),
    col('charset', 'charset'),
    col('status', 'status', 'int'),
    col('depth', 'depth', 'int'),
    col('content_hash', 'contentHash'),
    col('etag', 'etag'),
    col('last_modified', 'lastModified'),
    col('html_path', 'htmlPath'),
    col('text_path', 'textPath'),
    col('html_bytes', 'htmlBytes', 'int'),
    col('text_chars', 'textChars', 'int'),
    col('link_density', 'linkDensity', 'float'),
    col('fetched_at', 'fetchedAt', 'time'),
    col('response', 'response', 'json'),
  ],
};

export const IMAGE: TableSpec<ImageRow> = {
  table: 'crawler_image',
  conflict: ['id'],
  columns: [
    col('id', 'id'),
    col('catalog_id', 'catalogId'),
    col('version', 'version', 'int'),
    col('url', 'url'),
    col('content_hash', 'contentHash'),
    col('content_type', 'contentType'),
    col('path', 'path'),
    col('bytes', 'bytes', 'int'),
    col('width', 'width', 'int'),
    col('height', 'height', 'int'),
    col('created_at', 'createdAt', 'time'),
  ],
};

/** A picture as a page shows it: the image row plus the link's alt and surrounding text (imagesOfResource). */
export type ImageWithRef = ImageRow & { alt: string; surroundingText: string };
export const IMAGE_WITH_REF: TableSpec<ImageWithRef> = {
  table: IMAGE.table,
  conflict: IMAGE.conflict,
  columns: [
    ...(IMAGE.columns as TableSpec<ImageWithRef>['columns']),
    { column: 'alt', key: 'alt', kind: 'text' },
    { column: 'surrounding_text', key: 'surroundingText', kind: 'text' },
  ],
};

export const RESOURCE_IMAGE: TableSpec<ResourceImageRow> = {
  table: 'crawler_resource_image',
  conflict: ['id'],
  columns: [
    col('id', 'id'),
    col('catalog_id', 'catalogId'),
    col('version', 'version', 'int'),
    col('resource_id', 'resourceId'),
    col('image_id', 'imageId'),
    col('alt', 'alt'),
    col('surrounding_text', 'surroundingText'),
  ],
};

export const REPORT: TableSpec<ReportRow> = {
  table: 'crawler_report',
  conflict: ['catalog_id', 'version'],
  columns: [
    col('catalog_id', 'catalogId'),
    col('version', 'version', 'int'),
    col('action', 'action'),
    col('published', 'published', 'bool'),
    col('report', 'report', 'json'),
    col('created_at', 'createdAt', 'time'),
  ],
};

export const URL_LEDGER: TableSpec<LedgerRow> = {
  table: 'crawler_url',
  conflict: ['id'],
  columns: [
    col('id', 'id'),
    col('catalog_id', 'catalogId'),
    col('version', 'version', 'int'),
    col('url', 'url'),
    col('url_hash', 'urlHash'),
    col('state', 'state'),
    col('outcome', 'outcome'),
    col('detail', 'detail'),
    col('status', 'status', 'int'),
    col('reason', 'reason'),
    col('referrer', 'referrer'),
    col('depth', 'depth', 'int'),
    col('fetched_at', 'fetchedAt', 'time'),
    col('updated_at', 'updatedAt', 'time'),
    col('redirects', 'redirects', 'json'),
    col('found_as', 'foundAs'),
    col('priority', 'priority', 'json'),
    col('changed_at', 'changedAt', 'time'),
    col('change_count', 'changeCount', 'int'),
    col('recrawl_every', 'recrawlEvery', 'int'),
    col('due_at', 'dueAt', 'time'),
    col('unchanged_visits', 'unchangedVisits', 'int'),
  ],
};

/** The tables of a version's crawl metadata: the versions a catalog has are the versions they hold rows of. */
export const RESOURCE_TABLES = [RESOURCE_IMAGE.table, IMAGE.table, RESOURCE.table, REPORT.table] as const;

/**
 * Every table holding a version's rows; deleting a version (or a catalog) empties them by (catalog_id, version).
 * The url ledger goes first and counts in the delete, but a version with nothing but ledger rows is not a version.
 */
export const VERSIONED_TABLES = [URL_LEDGER.table, ...RESOURCE_TABLES] as const;

/** An instant in the one text form both databases give back: `2024-05-01T10:00:00.000Z`. */
export function toIsoInstant(value: unknown, field: string): string {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) {
    throw new CrawlerError('BAD_INPUT', `${field} is not a date-time: ${String(value)}`, {
      fix: 'pass an ISO-8601 instant such as new Date().toISOString()',
    });
  }
  return date.toISOString();
}

/** The value a driver is given for one column; `bool` becomes 0/1 when `numericBool` (SQLite). */
export function toDb(kind: ColumnKind, value: unknown, field: string, numericBool: boolean): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'time':
      return toIsoInstant(value, field);
    case 'json':
      return JSON.stringify(value);
    case 'bool':
      return numericBool ? (value ? 1 : 0) : Boolean(value);
    default:
      return value;
  }
}

function fromDb(kind: ColumnKind, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'time':
      return toIsoInstant(value, 'stored time');
    case 'json':
      return JSON.parse(String(value));
    case 'bool':
      return value === true || value === 1 || value === '1' || value === 't';
    case 'int':
    case 'float':
      return Number(value);
    default:
      return typeof value === 'string' ? value : String(value);
  }
}

/** One table row (snake_case, driver values) as the model's camelCase row. */
export function rowFromDb<Row>(spec: TableSpec<Row>, record: Record<string, unknown>): Row {
  const row: Record<string, unknown> = {};
  for (const c of spec.columns) row[c.key] = fromDb(c.kind, record[c.column]);
  return spec.read ? spec.read(row as Row) : (row as Row);
}

/** A model row as driver values in column order. */
export function rowToDb<Row>(spec: TableSpec<Row>, row: Row, numericBool: boolean): unknown[] {
  return spec.columns.map((c) => toDb(c.kind, row[c.key], `${spec.table}.${c.column}`, numericBool));
}

/** The rows with one row per conflict key, the last one winning (as sequential upserts would). */
export function lastPerKey<Row>(spec: TableSpec<Row>, rows: readonly Row[]): Row[] {
  if (rows.length < 2) return [...rows];
  const keys = spec.conflict.map((name) => spec.columns.find((c) => c.column === name)?.key as keyof Row);
  const byKey = new Map<string, Row>();
  for (const row of rows) {
    const key = keys.map((k) => String(row[k])).join('\u0000');
    byKey.delete(key);
    byKey.set(key, row);
  }
  return [...byKey.values()];
}

/**
 * The rows in the order of their conflict key (compared as strings): writers that upsert overlapping batches in
 * one order take their row locks in one order, so two of them wait for each other instead of deadlocking.
 */
export function sortedByKey<Row>(spec: TableSpec<Row>, rows: Row[]): Row[] {
  if (rows.length < 2) return rows;
  const keys = spec.conflict.map((name) => spec.columns.find((c) => c.column === name)?.key as keyof Row);
  const keyOf = (row: Row) => keys.map((k) => String(row[k])).join('\u0000');
  return rows
    .map((row) => [keyOf(row), row] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, row]) => row);
}

/** `"col" = excluded."col"` for every column outside the conflict key. */
export function updateSet<Row>(spec: TableSpec<Row>): string {
  return spec.columns
    .filter((c) => !spec.conflict.includes(c.column))
    .map((c) => `"${c.column}" = excluded."${c.column}"`)
    .join(', ');
}

export function columnList<Row>(spec: TableSpec<Row>, prefix = ''): string {
  return spec.columns.map((c) => `${prefix}"${c.column}"`).join(', ');
}

/** The error for updating a catalog that is not there. */
export function catalogMissing(id: string): CrawlerError {
  return new CrawlerError('NOT_FOUND', `no catalog with id ${id}`, { fix: 'create it first, or list catalogs' });
}
