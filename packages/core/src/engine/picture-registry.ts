import type { ImageRow } from '../model.js';

/**
 * Who fetches a picture url in a run, when more than one process crawls it (a cluster's members): `claim` answers
 * `fetch: true` to exactly one caller, which fetches the picture and then `settle`s what it became; every other
 * caller gets that result (`row`, or undefined when the picture was not kept) and links it without a request. A
 * caller whose claimant went away (its claim is stale) is answered `fetch: true` in its place. Absent, each run
 * fetches each picture url once by itself (PageImages).
 */
export interface PictureRegistry {
  claim(url: string, signal?: AbortSignal): Promise<PictureClaim>;
  /** What the claimed picture became: its row, or undefined when it was not kept (refused, unreachable). */
  settle(url: string, row: ImageRow | undefined): Promise<void>;
}

export type PictureClaim = { fetch: true } | { fetch: false; row: ImageRow | undefined };
