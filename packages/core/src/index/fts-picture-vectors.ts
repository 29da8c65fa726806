import type Database from 'better-sqlite3';

/**
 * The text vectors of picture records, in the catalog's index file beside the records (`picture_vectors`, keyed by
 * the record id): what a picture's alt text, caption, file name and page title mean, embedded once per run by the
 * vector layer's text model. Pictures are few next to chunks (the GIMP help: 1,651 pictures for 2,044 chunks of
 * 679 pages), so nearest pictures are found by an exact scan of the version's vectors — no approximate index to
 * build, and nothing to keep in step with the vector store's files: the vectors go with the version's records.
 */

export interface PictureVector {
  /** The picture record's id (`ids.imagePoint`). */
  id: string;
  version: number;
  vector: Float32Array;
}

const ready = new WeakSet<Database.Database>();

function ensure(db: Database.Database): void {
  if (ready.has(db)) return;
  db.exec(`
    CREATE TABLE IF NOT EXISTS picture_vectors (
      id TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      dims INTEGER NOT NULL,
      vector BLOB NOT NULL
    );
    CREATE INDEX IF NOT EXISTS picture_vectors_version ON picture_vectors(version);
  `);
  ready.add(db);
}

/** Stores (or replaces) the vectors of picture records. */
export function putPictureVectors(db: Database.Database, vectors: readonly PictureVector[]): void {
  ensure(db);
  const put = db.prepare(
    `INSERT INTO picture_vectors (id, version, dims, vector) VALUES (?, ?, ?, ?)
     ON CONFLICT(id) DO UPDATE SET version = excluded.version, dims = excluded.dims, vector = excluded.vector`,
  );
  db.transaction(() => {
    for (const v of vectors) {
      put.run(v.id, v.version, v.vector.length, Buffer.from(v.vector.buffer, v.vector.byteOffset, v.vector.byteLength));
    }
  })();
}

/** Removes the picture vectors of a version (with its records). */
export function deletePictureVectorsOfVersion(db: Database.Database, version: number): void {
  ensure(db);
  db.prepare(`DELETE FROM picture_vectors WHERE version = ?`).run(version);
}

/** Removes the vectors of these picture records (records that went). */
export function deletePictureVectors(db: Database.Database, ids: readonly string[]): void {
  if (ids.length === 0) return;
  ensure(db);
  db.prepare(`DELETE FROM picture_vectors WHERE id IN (SELECT value FROM json_each(?))`).run(JSON.stringify(ids));
}

/** How many picture vectors (of any width) the versions hold. */
export function countPictureVectors(db: Database.Database, versions: readonly number[]): number {
  ensure(db);
  return (
    db
      .prepare(`SELECT count(*) AS n FROM picture_vectors WHERE version IN (SELECT value FROM json_each(?))`)
      .get(JSON.stringify(versions)) as { n: number }
  ).n;
}

/** The stored vector of one picture record; undefined when it has none. */
export function pictureVectorOf(db: Database.Database, id: string): Float32Array | undefined {
  ensure(db);
  const row = db.prepare(`SELECT vector FROM picture_vectors WHERE id = ?`).get(id) as { vector: Buffer } | undefined;
  return row ? toFloats(row.vector) : undefined;
}

/** A blob's floats; its bytes may start anywhere in Node's buffer pool, so an unaligned one is copied. */
export function toFloats(b: Buffer): Float32Array {
  return b.byteOffset % 4 === 0
    ? new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4)
    : new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/**
 * The `limit` picture records of the versions nearest to `query` by cosine (vectors of another width are skipped),
 * best first, ties by id; the records in `exclude` are left out.
 */
export function nearestPictures(
  db: Database.Database,
  versions: readonly number[],
  query: Float32Array,
  limit: number,
  exclude: ReadonlySet<string> = new Set(),
): Array<{ id: string; score: number }> {
  ensure(db);
  const rows = db
    .prepare(`SELECT id, vector FROM picture_vectors WHERE dims = ? AND version IN (SELECT value FROM json_each(?))`)
    .iterate(query.length, JSON.stringify(versions)) as Iterable<{ id: string; vector: Buffer }>;
  return nearestOf(rows, query, limit, exclude);
}

/** The `limit` rows nearest to `query` by cosine, best first, ties by id; the ids in `exclude` left out. */
export function nearestOf(
  rows: Iterable<{ id: string; vector: Buffer }>,
  query: Float32Array,
  limit: number,
  exclude: ReadonlySet<string>,
): Array<{ id: string; score: number }> {
  let qq = 0;
  for (const x of query) qq += x * x;
  const qn = Math.sqrt(qq) || 1;
  const best: Array<{ id: string; score: number }> = [];
  for (const r of rows) {
    if (exclude.has(r.id)) continue;
    const v = toFloats(r.vector);
    let dot = 0;
    let vv = 0;
    for (let i = 0; i < v.length; i++) {
      const x = v[i] as number;
      dot += x * (query[i] as number);
      vv += x * x;
    }
    best.push({ id: r.id, score: dot / (qn * (Math.sqrt(vv) || 1)) });
  }
  best.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return best.slice(0, limit);
}
