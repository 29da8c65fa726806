import type { Catalog } from '../model.js';
import { scopedSeeds } from '../services/job-seeds.js';
import type { BlobStore } from '../storage/blob-store.js';
import { recordPush } from './feed-state.js';

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
 * the catalog's url; the others are refused and listed. Nothing is recorded when none is left.
 */
export async function pushChangedUrls(
  blobs: BlobStore,
  catalog: Catalog,
  urls: readonly unknown[],
): Promise<ChangedPush> {
  const { valid, refused } = scopedSeeds(catalog, urls);
  if (valid.length > 0) await recordPush(blobs, catalog.id, valid);
  return { catalog: { id: catalog.id, name: catalog.name }, recorded: valid, refused };
}
