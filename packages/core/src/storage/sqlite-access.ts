import type Database from 'better-sqlite3';

/** What a store of this database's family (the ledger, the users) gets to work with. */
export interface SqliteAccess {
  readonly db: Database.Database;
  /** Run `fn` and translate a failure into a CrawlerError naming `operation` and the file. */
  run<T>(operation: string, fn: () => T): Promise<T>;
  /** A prepared statement, cached by its text. */
  stmt(sql: string): Database.Statement;
}
