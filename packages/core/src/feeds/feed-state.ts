import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../storage/blob-store.js';
import type { FeedChangeKind } from './types.js';

// Where a catalog's change feeds stand, kept as small JSON files beside the catalog's versions
// (`assets/{catalog}/feeds/`), so they leave with the catalog: the position of each feed (written only by a run,
// which holds the catalog's run lock), the urls pushed by `POST /v2/catalog/{id}/changed` (one file per push, so a
// push never races a run), and the set a merge is working on (so a resumed merge fetches what it would have).

const dir = (catalogId: string) => `assets/${catalogId}/feeds`;
const positionsKey = (catalogId: string) => `${dir(catalogId)}/positions.json`;
const pushedDir = (catalogId: string) => `${dir(catalogId)}/pushed/`;
const runKey = (catalogId: string, version: number) => `${dir(catalogId)}/run-v${version}.json`;

/** Each feed's position, by the setting as written (`rss:https://…`). */
export type FeedPositions = Record<string, string>;

/** The set of urls a merge works on, as it was read when the merge began. */
export interface FeedRunState {
  /** Urls named changed (or pushed), normalised. */
  changed: string[];
  /** Urls named deleted, normalised. */
  deleted: string[];
  /** Where each feed stands once this merge reaches its end. */
  positions: FeedPositions;
  /** The push files this merge consumed (removed once it reaches its end). */
  pushed: string[];
}

/** One push of urls named changed. */
export interface FeedPush {
  at: string;
  urls: string[];
  kind: FeedChangeKind;
}

async function readJson<T>(blobs: BlobStore, key: string): Promise<T | undefined> {
  const text = await blobs.getText(key);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export async function readPositions(blobs: BlobStore, catalogId: string): Promise<FeedPositions> {
  return (await readJson<FeedPositions>(blobs, positionsKey(catalogId))) ?? {};
}

export async function writePositions(blobs: BlobStore, catalogId: string, positions: FeedPositions): Promise<void> {
  await blobs.put(positionsKey(catalogId), `${JSON.stringify(positions, null, 2)}\n`);
}

/** Record urls pushed as changed, for the catalog's next merge; returns the push's key. */
export async function recordPush(blobs: BlobStore, catalogId: string, urls: string[]): Promise<string> {
  const at = new Date().toISOString();
  const key = `${pushedDir(catalogId)}${at.replace(/[-:.]/g, '')}-${randomUUID()}.json`;
  const push: FeedPush = { at, urls, kind: 'changed' };
  await blobs.put(key, `${JSON.stringify(push)}\n`);
  return key;
}

/** The pushes waiting for a merge (at most `max` files, oldest first), with their keys. */
export async function readPushes(
  blobs: BlobStore,
  catalogId: string,
  max: number,
): Promise<Array<{ key: string; push: FeedPush }>> {
  const keys: string[] = [];
  for await (const key of blobs.list(pushedDir(catalogId))) {
    if (key.endsWith('.json')) keys.push(key);
  }
  keys.sort();
  const out: Array<{ key: string; push: FeedPush }> = [];
  for (const key of keys.slice(0, max)) {
    const push = await readJson<FeedPush>(blobs, key);
    if (push && Array.isArray(push.urls)) out.push({ key, push });
  }
  return out;
}

export async function readRunState(
  blobs: BlobStore,
  catalogId: string,
  version: number,
): Promise<FeedRunState | undefined> {
  return readJson<FeedRunState>(blobs, runKey(catalogId, version));
}

export async function writeRunState(
  blobs: BlobStore,
  catalogId: string,
  version: number,
  state: FeedRunState,
): Promise<void> {
  await blobs.put(runKey(catalogId, version), `${JSON.stringify(state)}\n`);
}

/** The merge reached its end: its positions kept, its pushes and its set gone. */
export async function settleRunState(
  blobs: BlobStore,
  catalogId: string,
  version: number,
  positions: FeedPositions,
  pushed: readonly string[],
): Promise<void> {
  await writePositions(blobs, catalogId, positions);
  for (const key of pushed) await blobs.deletePrefix(key);
  await blobs.deletePrefix(runKey(catalogId, version));
}
