/**
 * ExistingUrlPathFilter: has this url been handled in this catalog version already?
 * Marked once a url reaches a durable outcome, so a crash never hides an unfinished url.
 */
export interface ExistingUrlPathFilter {
  has(catalogId: string, version: number, urlHash: string): Promise<boolean>;
  mark(catalogId: string, version: number, urlHash: string): Promise<void>;
  markAll(catalogId: string, version: number, urlHashes: string[]): Promise<void>;
  /**
   * Forget these urls of a version (a page removed at a session's end: an orphan deleted, a duplicate of a removed
   * page), so a later link to one queues it as a new url. `has` answers false for them from now on.
   */
  forgetAll(catalogId: string, version: number, urlHashes: string[]): Promise<void>;
  /** Forget a whole version (delete / fresh crawl). */
  clearVersion(catalogId: string, version: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * ContentDedupFilter: has the same content (sha256) or near-same content (simhash) been saved in this version?
 */
export interface ContentDedupFilter {
  readonly kind: 'sha256' | 'simhash';
  /** The fingerprint of a text (hex). */
  fingerprint(text: string): string;
  /**
   * Atomically check and record. Returns the resource id that already holds this content,
   * or undefined when it is new (and now recorded under resourceId).
   */
  checkAndRecord(catalogId: string, version: number, text: string, resourceId: string): Promise<string | undefined>;
  /**
   * The resource id that already holds this content (or near-same content, for simhash), recording nothing: what
   * checkAndRecord would answer, for a judge that must leave no trace (`test-url`).
   */
  check(catalogId: string, version: number, text: string): Promise<string | undefined>;
  /** Forget one resource's fingerprint (a refreshed page whose content changed). */
  forget(catalogId: string, version: number, text: string): Promise<void>;
  clearVersion(catalogId: string, version: number): Promise<void>;
  close(): Promise<void>;
}
