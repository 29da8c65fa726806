/**
 * The render memory (issue 17): what the adaptive extractor learned, per host and url pattern (see `renderPattern`),
 * about whether pages need a browser — kept across runs, so a site known to be a single-page app renders on the
 * memory's word and a pattern that never needed a browser stops being put to the RenderingDetector.
 *
 * The interface is small and async so a shared store (Redis in a cluster) fits behind it; the default keeps one JSON
 * file per host under `system/render-memory/` (`FileRenderMemory`). The counting rule (`observe`) and the policy
 * (`adviseRender`) are pure functions here, the same for every store.
 */
export interface RenderMemory {
  /** What is known of one pattern of a host; undefined when nothing is. */
  get(host: string, pattern: string): Promise<PatternRecord | undefined>;
  /** Count one page of the pattern (a store applies `observe`); written later, in batches, by a batching store. */
  record(host: string, pattern: string, observation: RenderObservation): Promise<void>;
  /** Write what is pending; resolves once it is durable. */
  flush(): Promise<void>;
  /** Flush, then let go of the store; a closed memory refuses nothing but writes nothing more. */
  close(): Promise<void>;
}

/**
 * One page of a pattern, as the adaptive extractor saw it:
 * - `http`: the detector read the http answer and found it complete;
 * - `render`: the browser rendered it and found text the http answer did not have (or it stayed a shell);
 * - `static`: the browser rendered it and found nothing more: the page was static after all;
 * - `unchecked`: taken over http on the memory's word, the detector not asked.
 * `checked` is false when the memory's word was taken (no detector): it counts towards the next re-check.
 */
export interface RenderObservation {
  needed: 'http' | 'render' | 'static' | 'unchecked';
  checked: boolean;
}

/** The counts of one pattern of one host. */
export interface PatternRecord {
  /** Http answers the detector found complete. */
  http: number;
  /** Renders that were needed. */
  rendered: number;
  /** Renders that found the page static after all. */
  static: number;
  /** Pages taken over http on the memory's word. */
  unchecked: number;
  /** Consecutive pages: > 0 that needed rendering, < 0 that did not (`unchecked` pages leave it as it is). */
  streak: number;
  /** Pages taken on the memory's word since the detector was last asked. */
  sinceCheck: number;
  /** Epoch ms of the last page counted. */
  lastSeen: number;
}

/** When the memory's word is taken. */
export interface RenderPolicy {
  /** Consecutive pages of a pattern that needed rendering after which the rest go straight to the browser; 0 = never. @default 3 */
  renderAfter: number;
  /** Consecutive pages of a pattern that needed no rendering after which the detector is not asked; 0 = never. @default 20 */
  staticAfter: number;
  /** Every this-many pages of a remembered pattern, one goes through http and the detector again. @default 50 */
  recheckEvery: number;
}

export const DEFAULT_RENDER_POLICY: Readonly<RenderPolicy> = { renderAfter: 3, staticAfter: 20, recheckEvery: 50 };

/**
 * What to do with the next page of a pattern: `detect` (over http, then ask the detector), `render` (over http,
 * then straight to the browser: the pattern is remembered as needing it) or `http` (over http, no detector: the
 * pattern is remembered as static). A remembered pattern is put to the detector again every `recheckEvery` pages.
 */
export function adviseRender(record: PatternRecord | undefined, policy: RenderPolicy): 'detect' | 'render' | 'http' {
  if (!record) return 'detect';
  const remembered =
    policy.renderAfter > 0 && record.streak >= policy.renderAfter
      ? 'render'
      : policy.staticAfter > 0 && record.streak <= -policy.staticAfter
        ? 'http'
        : undefined;
  if (!remembered) return 'detect';
  return record.sinceCheck + 1 >= policy.recheckEvery ? 'detect' : remembered;
}

/** A pattern's record after one more page (a new record when there was none). Pure: `record` is not changed. */
export function observe(
  record: PatternRecord | undefined,
  observation: RenderObservation,
  now: number = Date.now(),
): PatternRecord {
  const r: PatternRecord = record
    ? { ...record }
    : { http: 0, rendered: 0, static: 0, unchecked: 0, streak: 0, sinceCheck: 0, lastSeen: now };
  switch (observation.needed) {
    case 'http':
      r.http++;
      r.streak = Math.min(r.streak, 0) - 1;
      break;
    case 'static':
      r.static++;
      r.streak = Math.min(r.streak, 0) - 1;
      break;
    case 'render':
      r.rendered++;
      r.streak = Math.max(r.streak, 0) + 1;
      break;
    case 'unchecked':
      r.unchecked++;
      break;
  }
  // Bounded: the streak only has to reach the thresholds.
  r.streak = Math.max(-STREAK_BOUND, Math.min(STREAK_BOUND, r.streak));
  r.sinceCheck = observation.checked ? 0 : r.sinceCheck + 1;
  r.lastSeen = now;
  return r;
}

const STREAK_BOUND = 1_000_000;

/** Whether a value read from a store is a PatternRecord (a store drops what is not). */
export function isPatternRecord(v: unknown): v is PatternRecord {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return ['http', 'rendered', 'static', 'unchecked', 'streak', 'sinceCheck', 'lastSeen'].every((k) =>
    Number.isFinite(r[k]),
  );
}

/** A memory that remembers nothing (the adaptive extractor without one asks the detector about every page). */
export const noRenderMemory: RenderMemory = {
  get: async () => undefined,
  record: async () => undefined,
  flush: async () => undefined,
  close: async () => undefined,
};
