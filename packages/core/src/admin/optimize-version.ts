import type { Logger } from 'pino';
import type { SearchIndex } from '../index/search-index.js';
import type { VectorStore } from '../vector/vector-store.js';

/**
 * Prepare a finished version for serving, as a publish and a replay both do: versions about to be pruned leave the
 * index first, then the index family optimizes the version (the embedded one: champion lists, word pairs, a merged
 * index) and the vector family finishes its approximate index. Search is exact without them, only slower: a failure
 * is logged, never fatal.
 */
export async function optimizeVersion(
  log: Logger,
  catalogId: string,
  version: number,
  parts: { index?: SearchIndex | undefined; vectors?: VectorStore | undefined; leaving?: readonly number[] },
): Promise<void> {
  const started = performance.now();
  const { index, vectors } = parts;
  if (index) {
    for (const old of parts.leaving ?? []) await index.deleteVersion(catalogId, old);
    await index
      .optimize?.(catalogId, version)
      .then((report) => {
        log.debug({ catalogId, version, report }, 'full-text index optimized');
        for (const warning of report.warnings) log.warn({ catalogId, version }, warning);
      })
      .catch((err: unknown) => log.warn({ catalogId, version, err }, 'could not optimize the full-text index'));
  }
  if (vectors) {
    await vectors
      .optimize?.(catalogId, version)
      .catch((err: unknown) => log.warn({ catalogId, version, err }, 'could not finish the approximate vector index'));
  }
  log.debug({ catalogId, version, ms: Math.round(performance.now() - started) }, 'version optimized');
}
