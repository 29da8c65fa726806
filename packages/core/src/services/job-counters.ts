import type { CounterSnapshot } from '../engine/counters.js';
import type { RunReport } from '../model.js';

/** The counters a run report ends with, in the shape of the live ones. */
export function finalCounters(r: RunReport, last: CounterSnapshot | null): CounterSnapshot {
  return {
    dispatched: r.urls.dispatched,
    handled: r.urls.handled,
    saved: r.produced.saved,
    images: r.produced.images,
    indexed: r.produced.indexed,
    vectored: r.produced.vectored,
    alreadySeen: r.urls.alreadySeen,
    filtered: r.urls.filtered,
    unreachable: r.urls.unreachable,
    duplicateContent: r.urls.duplicateContent,
    failures: r.urls.failures,
    abandoned: r.urls.abandoned,
    unmodified: r.urls.unmodified,
    redirected: r.urls.redirected,
    consecutiveFailures: last?.consecutiveFailures ?? 0,
    rejected: { ...r.rejected },
    examples: { ...r.examples },
    pictures: { rejected: { ...(r.pictures?.rejected ?? {}) }, examples: { ...(r.pictures?.examples ?? {}) } },
    charsetFallbacks: r.content?.charsetFallbacks ?? 0,
    rendered: { ...(r.rendered?.reasons ?? {}) },
    noted: { ...(r.flow?.noted ?? {}) },
    notedExamples: { ...(r.flow?.examples ?? {}) },
    elapsedMs: r.elapsedMs,
  };
}
