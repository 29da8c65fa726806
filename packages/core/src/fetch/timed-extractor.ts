import type { Extractor } from './extractor.js';

/**
 * An Extractor that tells `observe` how long each fetch took, in seconds, whether it answered or threw. It changes
 * nothing else: the result or the error is passed on as it is.
 */
export function timedExtractor(extractor: Extractor, observe: (seconds: number) => void): Extractor {
  return {
    name: extractor.name,
    fetch: async (url, options) => {
      const started = performance.now();
      try {
        return await extractor.fetch(url, options);
      } finally {
        observe((performance.now() - started) / 1000);
      }
    },
    close: () => extractor.close(),
  };
}
