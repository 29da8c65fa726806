import type { Catalog } from '../model.js';
import { scopedSeeds } from '../services/job-seeds.js';
import type { BlobStore } from '../storage/blob-store.js';
import { recordPush } from './feed-state.js';

/** Where a push is recorded: a file store, or the administrative writer (a cluster's leader records it). */
export type PushTarget = BlobStore | { recordPush(catalogId: string, urls: string[]): Promise<string> };

/** What a push of changed urls recorded, and what it refused (outside the catalog, not a url). */
export interface ChangedPush {
  catalog: { id: string; name: string };
  /** The urls recorded (normalised), fetched by the catalog's next merge. */
  recorded: string[];
  refused: Array<{ url: string; reason: string }>;
}

/**
 * Record urls a CMS (or anyone with the admin role) says changed, for the catalog's next merge
 * (`POST /v2/catalog/{ref}/changed`, docs/freshness.md#pushed-changes). Each url is normalised and must sit under
 * the catalog's url; the others are refused and listed. Nothing is recorded when none is left. Given the
 * administrative writer (the route does), a cluster member hands the push to its leader, which reads the feeds.
 */
export async function pushChangedUrls(
  target: PushTarget,
  catalog: Catalog,
  urls: readonly unknown[],
): Promise<ChangedPush> {
  const { valid, refused } = scopedSeeds(catalog, urls);
  if (valid.length > 0) {
    if ('recordPush' in target) await target.recordPush(catalog.id, valid);
    else await recordPush(target, catalog.id, valid);
  }
  return { catalog: { id: catalog.id, name: catalog.name }, recorded: valid, refused };
}
