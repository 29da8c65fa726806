import type Database from 'better-sqlite3';
import { nearestOf, toFloats } from './fts-picture-vectors.js';

/**
 * The image vectors of picture records, in the catalog's index file beside the records and their caption vectors
 * (`picture_image_vectors`, keyed by the record id and the model): what a picture shows, embedded from its stored
 * bytes by an image model's vision tower (CLIP or SigLIP) when the catalog's `contentMode` is `text+image`. A query
 * is compared with them through the same model's text tower, a picture with another by its own vector. As the
 * caption vectors, they are few enough for an exact scan, and they go with the version's records.
 */

export interface PictureImageVector {
  /** The picture record's id (`ids.imagePoint`). */
  id: string;
  version: number;
  vector: Float32Array;
}

const ready = new WeakSet<Database.Database>();

function ensure(db: Database.Database): void {
  if (ready.has(db)) return;
  db.exec(`
    CREATE TABLE IF NOT EXISTS picture_image_vectors (
      id TEXT NOT NULL,
      version INTEGER NOT NULL,
      model TEXT NOT NULL,
      dims INTEGER NOT NULL,
      vector BLOB NOT NULL,
      PRIMARY KEY (id, model)
    );
    CREATE INDEX IF NOT EXISTS picture_image_vectors_version ON picture_image_vectors(version, model);
  `);
  ready.add(db);
}

/** Stores (or replaces) the image vectors `model` gave these picture records. */
export function putPictureImageVectors(
  db: Database.Database,
  model: string,
  vectors: readonly PictureImageVector[],
): void {
  ensure(db);
  const put = db.prepare(
    `INSERT INTO picture_image_vectors (id, version, model, dims, vector) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(id, model) DO UPDATE SET version = excluded.version, dims = excluded.dims, vector = excluded.vector`,
  );
  db.transaction(() => {
    for (const v of vectors) {
      const bytes = Buffer.from(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength);
      put.run(v.id, v.version, model, v.vector.length, bytes);
    }
  })();
}

/** Removes the image vectors of a version (with its records). */
export function deletePictureImageVectorsOfVersion(db: Database.Database, version: number): void {
  ensure(db);
  db.prepare(`DELETE FROM picture_image_vectors WHERE version = ?`).run(version);
}

/** Removes the image vectors of these picture records (records that went). */
export function deletePictureImageVectors(db: Database.Database, ids: readonly string[]): void {
  if (ids.length === 0) return;
  ensure(db);
  db.prepare(`DELETE FROM picture_image_vectors WHERE id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(ids));
}

/** How many image vectors the versions hold: of `model`, or of any model when none is named. */
export function countPictureImageVectors(db: Database.Database, versions: readonly number[], model?: string): number {
  ensure(db);
  const list = JSON.stringify(versions);
  const row = model
    ? db
        .prepare(
          `SELECT count(*) AS n FROM picture_image_vectors WHERE model = ? AND version IN (SELECT value FROM json_each(?))`,
        )
        .get(model, list)
    : db
        .prepare(`SELECT count(*) AS n FROM picture_image_vectors WHERE version IN (SELECT value FROM json_each(?))`)
        .get(list);
  return (row as { n: number }).n;
}

/** The image vector of one picture record (the one of `model` when named, else the first model's by name). */
export function pictureImageVectorOf(
  db: Database.Database,
  id: string,
  model?: string,
): { model: string; vector: Float32Array } | undefined {
  ensure(db);
  const row = (
    model
      ? db.prepare(`SELECT model, vector FROM picture_image_vectors WHERE id = ? AND model = ?`).get(id, model)
      : db.prepare(`SELECT model, vector FROM picture_image_vectors WHERE id = ? ORDER BY model LIMIT 1`).get(id)
  ) as { model: string; vector: Buffer } | undefined;
  return row ? { model: row.model, vector: toFloats(row.vector) } : undefined;
}

/**
 * The `limit` picture records of the versions whose image vectors of `model` are nearest to `query` by cosine
 * (vectors of another width skipped), best first, ties by id; the records in `exclude` left out.
 */
export function nearestPictureImages(
  db: Database.Database,
  versions: readonly number[],
  model: string,
  query: Float32Array,
  limit: number,
  exclude: ReadonlySet<string> = new Set(),
): Array<{ id: string; score: number }> {
  ensure(db);
  const rows = db
    .prepare(
      `SELECT id, vector FROM picture_image_vectors
       WHERE model = ? AND dims = ? AND version IN (SELECT value FROM json_each(?))`,
    )
    .iterate(model, query.length, JSON.stringify(versions)) as Iterable<{ id: string; vector: Buffer }>;
  return nearestOf(rows, query, limit, exclude);
}
