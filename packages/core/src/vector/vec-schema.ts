import type Database from 'better-sqlite3';
import { CrawlerError } from '../errors.js';

/**
 * The embedded vector store's file (`<collection>_<dims>/vectors.db`): its schema, migrated in place when opened,
 * and the prepared statements of every write and search.
 */

const SCHEMA_VERSION = 2;

export interface Statements {
  findRowid: Database.Statement;
  lastRowid: Database.Statement;
  putLastRowid: Database.Statement;
  insertPoint: Database.Statement;
  deletePoint: Database.Statement;
  insertVec: Database.Statement;
  deleteVec: Database.Statement;
  insertEmbedding: Database.Statement;
  backfillEmbedding: Database.Statement;
  deleteEmbedding: Database.Statement;
  knn: Database.Statement;
  payloads: Database.Statement;
  versionRowids: Database.Statement;
  resourceRowids: Database.Statement;
  deletePointRowid: Database.Statement;
  deleteVersionEmbeddings: Database.Statement;
  deleteVersionPoints: Database.Statement;
  countVersion: Database.Statement;
  countUpToRowid: Database.Statement;
  afterRowid: Database.Statement;
  countAfterRowid: Database.Statement;
  vectorsOf: Database.Statement;
  vecVector: Database.Statement;
  catalogVersions: Database.Statement;
  versionCounts: Database.Statement;
}

/** A stored vector, by rowid (null: a row written before schema 2, read from vec0 instead). */
export type StoredVector = { rowid: number; vector: Buffer | null };

export function migrate(db: Database.Database, dims: number): void {
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  const meta = new Map(
    (db.prepare(`SELECT key, value FROM meta`).all() as Array<{ key: string; value: string }>).map((r) => [
      r.key,
      r.value,
    ]),
  );
  if (meta.has('schema')) {
    const schema = Number(meta.get('schema'));
    if (schema !== 1 && schema !== SCHEMA_VERSION) {
      throw new CrawlerError(
        'CORRUPT',
        `vector store schema ${meta.get('schema')}, this build reads ${SCHEMA_VERSION}`,
        {
          fix: 'rebuild the vectors with replay --layers=vector',
        },
      );
    }
    if (Number(meta.get('dims')) !== dims) {
      throw new CrawlerError('CORRUPT', `the vector store holds ${meta.get('dims')}-d vectors, not ${dims}-d`, {
        fix: 'the directory name must match the width; rebuild with replay --layers=vector',
      });
    }
    // Schema 1 → 2: a plain copy of each vector (read by rowid in µs; vec0 takes ~50 µs) and rowids that never
    // come back after a delete. Rows written before have no copy yet: the index writer adds it when it reaches
    // them, and reads fall back to vec0 until then.
    if (schema === 1) {
      db.transaction(() => {
        db.exec(`CREATE TABLE IF NOT EXISTS embeddings (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL)`);
        db.prepare(`INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)`).run(String(SCHEMA_VERSION));
        db.prepare(
          `INSERT OR REPLACE INTO meta(key, value) VALUES ('last_rowid', (SELECT coalesce(max(rowid), 0) FROM points))`,
        ).run();
      }).immediate();
    }
    return;
  }
  db.transaction(() => {
    db.exec(`
      CREATE TABLE points (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        catalog_version TEXT NOT NULL,
        catalog_id TEXT NOT NULL,
        version INTEGER NOT NULL,
        resource_id TEXT NOT NULL,
        payload TEXT NOT NULL
      );
      CREATE INDEX points_catalog_version ON points(catalog_version);
      CREATE VIRTUAL TABLE vec USING vec0(
        catalog_version TEXT PARTITION KEY,
        embedding float[${dims}] distance_metric=cosine
      );
      CREATE TABLE embeddings (rowid INTEGER PRIMARY KEY, vector BLOB NOT NULL);
    `);
    const put = db.prepare(`INSERT INTO meta(key, value) VALUES (?, ?)`);
    put.run('schema', String(SCHEMA_VERSION));
    put.run('dims', String(dims));
    put.run('last_rowid', '0');
  })();
}

export function prepare(db: Database.Database): Statements {
  return {
    findRowid: db.prepare(`SELECT rowid, catalog_version AS cv FROM points WHERE id = ?`),
    lastRowid: db.prepare(`
      SELECT max(
        coalesce((SELECT max(rowid) FROM points), 0),
        coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_rowid'), 0)
      ) AS n`),
    putLastRowid: db.prepare(`INSERT OR REPLACE INTO meta(key, value) VALUES ('last_rowid', ?)`),
    insertPoint: db.prepare(`
      INSERT INTO points (rowid, id, catalog_version, catalog_id, version, resource_id, payload)
      VALUES (@rowid, @id, @catalogVersion, @catalogId, @version, @resourceId, @payload)`),
    deletePoint: db.prepare(`DELETE FROM points WHERE id = ?`),
    insertVec: db.prepare(`INSERT INTO vec (rowid, catalog_version, embedding) VALUES (?, ?, ?)`),
    deleteVec: db.prepare(`DELETE FROM vec WHERE rowid = ?`),
    insertEmbedding: db.prepare(`INSERT INTO embeddings (rowid, vector) VALUES (?, ?)`),
    backfillEmbedding: db.prepare(`INSERT OR IGNORE INTO embeddings (rowid, vector) VALUES (?, ?)`),
    deleteEmbedding: db.prepare(`DELETE FROM embeddings WHERE rowid = ?`),
    knn: db.prepare(`
      SELECT rowid, distance FROM vec
      WHERE embedding MATCH ? AND k = ? AND catalog_version = ?
      ORDER BY distance`),
    payloads: db.prepare(`SELECT rowid, id, payload FROM points WHERE rowid IN (SELECT value FROM json_each(?))`),
    versionRowids: db.prepare(`SELECT rowid FROM points WHERE catalog_version = ?`),
    resourceRowids: db.prepare(`SELECT rowid FROM points WHERE catalog_version = ? AND resource_id = ?`),
    deletePointRowid: db.prepare(`DELETE FROM points WHERE rowid = ?`),
    deleteVersionEmbeddings: db.prepare(
      `DELETE FROM embeddings WHERE rowid IN (SELECT rowid FROM points WHERE catalog_version = ?)`,
    ),
    deleteVersionPoints: db.prepare(`DELETE FROM points WHERE catalog_version = ?`),
    countVersion: db.prepare(`SELECT count(*) AS n FROM points WHERE catalog_version = ?`),
    countUpToRowid: db.prepare(`SELECT count(*) AS n FROM points WHERE catalog_version = ? AND rowid <= ?`),
    afterRowid: db.prepare(`
      SELECT p.rowid AS rowid, e.vector AS vector FROM points p LEFT JOIN embeddings e ON e.rowid = p.rowid
      WHERE p.catalog_version = ? AND p.rowid > ? ORDER BY p.rowid LIMIT ?`),
    countAfterRowid: db.prepare(`
      SELECT count(*) AS n FROM (SELECT 1 FROM points WHERE catalog_version = ? AND rowid > ? LIMIT ?)`),
    vectorsOf: db.prepare(`SELECT rowid, vector FROM embeddings WHERE rowid IN (SELECT value FROM json_each(?))`),
    vecVector: db.prepare(`SELECT embedding FROM vec WHERE rowid = ?`).pluck(),
    // The versions of one catalog (`<id>:` ≤ catalog_version < `<id>;`, ';' following ':'): a range of the index.
    catalogVersions: db.prepare(
      `SELECT DISTINCT catalog_version AS cv FROM points WHERE catalog_version >= ? AND catalog_version < ?`,
    ),
    versionCounts: db.prepare(`SELECT catalog_version AS cv, count(*) AS n FROM points GROUP BY catalog_version`),
  };
}
