import type { Extractor, FetchOptions, FetchResult } from '../fetch/extractor.js';
import type { Politeness } from './engine-deps.js';

/** One request under the host's politeness slot (pages and pictures alike). */
export async function politeFetch(
  politeness: Politeness,
  fetcher: Extractor,
  url: string,
  options: FetchOptions,
): Promise<FetchResult> {
  const release = await politeness.acquire(new URL(url).host);
  try {
    return await fetcher.fetch(url, options);
  } finally {
    release();
  }
}
