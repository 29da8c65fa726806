import { ConfigError } from '../errors.js';
import type { OutputLayer } from '../model.js';
import type { OutputChannel } from '../outputs/output-channel.js';

export type ReplayLayer = OutputLayer;
const REPLAY_ORDER: readonly ReplayLayer[] = ['file', 'index', 'vector'];

export interface ReplayProgress {
  layer: ReplayLayer;
  done: number;
  total: number;
}

/**
 * A page whose files are both missing from this data root: `refetch` — they are lost: the file layer fetches the page
 * again, index and vector count it failed; `absent` — another data root may hold them (a cluster member's): the page is
 * listed in the slice's `absent`, neither fetched nor counted.
 */
export type ReplayMissing = 'refetch' | 'absent';

export interface ReplayOptions {
  /** @default the served version, else the one being written */
  version?: number | undefined;
  /** Rebuilt in the order file → index → vector, whatever order they are given in. */
  layers: ReplayLayer[];
  onProgress?: ((progress: ReplayProgress) => void) | undefined;
  /**
   * Only these pages of the version (resource ids; ids not in it are ignored) and the pictures they show: one slice of
   * a replay shared out (`ReplayService.resourceIds` lists every id in the order slices are cut from).
   * @default every page of the version
   */
  resourceIds?: readonly string[] | undefined;
  /** @default 'refetch' */
  missing?: ReplayMissing | undefined;
}

/** What a replay session is opened with: the version and the layers of all its slices. */
export interface ReplaySessionOptions {
  /** @default the served version, else the one being written */
  version?: number | undefined;
  layers: ReplayLayer[];
  onProgress?: ((progress: ReplayProgress) => void) | undefined;
  /**
   * More output channels every page the index layer rebuilds is written to (a cluster member sends its rebuilt index
   * documents to the others'). Flushed after each batch, closed when the session ends. @default none
   */
  indexChannels?: OutputChannel[] | undefined;
}

/** One slice of a session: which pages, and what a page whose files are not here means. */
export interface ReplaySlice {
  /** @default every page of the version */
  resourceIds?: readonly string[] | undefined;
  /** @default 'refetch' */
  missing?: ReplayMissing | undefined;
}

/** What one slice did (its counts are added to the session's report). */
export interface ReplaySliceReport {
  /** Pages of the slice found in the version. */
  pages: number;
  layers: ReplayReport['layers'];
  /** HTTP requests made (only the file layer fetches). */
  requests: number;
  /** Pages whose files are not in this data root (`missing: 'absent'`), by resource id, sorted. */
  absent: string[];
  elapsedMs: number;
}

/** Pages or pictures of the file layer: checked = intact + written + changed + unreachable. */
export interface FileReplayCounts {
  checked: number;
  /** Nothing missing. */
  intact: number;
  /** Missing files written again with the content the row records. */
  written: number;
  /** Refetched, but the content differs from the row (a page is rewritten and its row updated; a picture is not). */
  changed: number;
  /** Missing, and the refetch failed. */
  unreachable: number;
}

export interface ReplayReport {
  catalogId: string;
  catalog: string;
  version: number;
  layers: {
    file?: {
      pages: FileReplayCounts;
      images: FileReplayCounts;
      failures: Array<{ url: string; reason: string }>;
      /** Pages whose Markdown file (`<id>.md`) was missing and was written from their stored html and text. */
      markdown?: number;
    };
    index?: { written: number; failed: number };
    vector?: { written: number; failed: number; chunks: number };
  };
  /** HTTP requests made (only the file layer fetches). */
  requests: number;
  /** catalogs.json was rewritten so search answers for this catalog. */
  republished: boolean;
  startedAt: string;
  endedAt: string;
  elapsedMs: number;
  /** Where this report was written (a blob key). */
  path?: string;
}

/** Failures a report lists (the counts count them all). */
export const MAX_FAILURES_LISTED = 20;

/** What one slice is run over, and the report it fills. */
export interface SliceWork {
  ids: readonly string[] | undefined;
  missing: ReplayMissing;
  absent: Set<string>;
  out: ReplaySliceReport;
}

/** Add one replay's layer counts to another's (slices into a session, members' parts into a cluster's report). */
export function addReplayLayers(into: ReplayReport['layers'], from: ReplayReport['layers']): ReplayReport['layers'] {
  if (from.file) {
    into.file ??= { pages: emptyCounts(), images: emptyCounts(), failures: [] };
    const f = into.file;
    addCounts(f.pages, from.file.pages);
    addCounts(f.images, from.file.images);
    if (from.file.markdown !== undefined) f.markdown = (f.markdown ?? 0) + from.file.markdown;
    for (const x of from.file.failures) if (f.failures.length < MAX_FAILURES_LISTED) f.failures.push(x);
  }
  if (from.index) {
    into.index ??= { written: 0, failed: 0 };
    const i = into.index;
    i.written += from.index.written;
    i.failed += from.index.failed;
  }
  if (from.vector) {
    into.vector ??= { written: 0, failed: 0, chunks: 0 };
    const v = into.vector;
    v.written += from.vector.written;
    v.failed += from.vector.failed;
    v.chunks += from.vector.chunks;
  }
  return into;
}

function addCounts(into: FileReplayCounts, from: FileReplayCounts): void {
  into.checked += from.checked;
  into.intact += from.intact;
  into.written += from.written;
  into.changed += from.changed;
  into.unreachable += from.unreachable;
}

export function emptyCounts(): FileReplayCounts {
  return { checked: 0, intact: 0, written: 0, changed: 0, unreachable: 0 };
}

/** The layers as a replay runs them (file → index → vector). @throws ConfigError for none, or a name it does not know */
export function normalizeLayers(layers: ReplayLayer[]): ReplayLayer[] {
  const bad = layers.filter((l) => !REPLAY_ORDER.includes(l));
  if (bad.length > 0 || layers.length === 0) {
    throw new ConfigError(
      '--layers',
      bad.length ? `unknown layer "${bad.join(', ')}"` : 'name the layers to replay',
      'use file, index and vector joined by +, e.g. --layers index+vector',
    );
  }
  return REPLAY_ORDER.filter((l) => layers.includes(l));
}
