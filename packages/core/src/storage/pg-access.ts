import type pg from 'pg';

/** What a store of this database's family (the ledger, the users) gets to work with. */
export interface PgAccess {
  /** One statement; a failure becomes a CrawlerError naming `operation` and the server. */
  query(operation: string, sql: string, params?: unknown[]): Promise<pg.QueryResult<Record<string, unknown>>>;
  /** `fn` in one transaction (BEGIN … COMMIT, ROLLBACK on failure), translated the same way. */
  transaction<T>(operation: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}
