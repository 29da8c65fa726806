/** The search modes a saved search runs in. */
export const ALERT_MODES = ['words', 'meaning', 'hybrid'] as const;
export type AlertMode = (typeof ALERT_MODES)[number];

/** A page a saved search matched in a publishing run. */
export interface AlertMatch {
  url: string;
  title: string;
}

/** A saved search of a catalog (gf_alert): it fires when a page a publishing run added or changed matches it. */
export interface AlertRow {
  id: string;
  catalogId: string;
  /** Unique within its catalog. */
  name: string;
  query: string;
  mode: AlertMode;
  createdAt: string;
  /** When it last matched a page of a publishing run (ISO); null: never. */
  lastFiredAt: string | null;
  /** The pages it matched then. */
  lastMatches: AlertMatch[] | null;
}

/** The saved searches on one database (SQLite or PostgreSQL, migration 0009_alerts). */
export interface AlertStore {
  /** Store a new saved search. @throws CrawlerError CONFLICT when the catalog has one of that name */
  create(row: AlertRow): Promise<void>;
  /** A catalog's saved searches, by name. */
  list(catalogId: string): Promise<AlertRow[]>;
  /** Remove one; false when it was not there. */
  delete(catalogId: string, id: string): Promise<boolean>;
  /** Record a firing: when, and the pages matched. */
  fired(id: string, at: string, matches: AlertMatch[]): Promise<void>;
  /** Remove every saved search of a catalog (its deletion); returns how many. */
  deleteCatalog(catalogId: string): Promise<number>;
}
