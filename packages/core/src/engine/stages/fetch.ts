import { errorMessage, FetchError } from '../../errors.js';
import { isPageType } from '../../fetch/content-type.js';
import type { FetchResult } from '../../fetch/extractor.js';
import { Outcome } from '../../outcomes.js';
import { done, NEXT, type PipelineDeps, type Stage } from '../page.js';
import { politeFetch } from '../polite-fetch.js';

/**
 * Extractor (seed 002's fetch), under the host's politeness slot (the delay resolver); the answer goes to the
 * write-ahead log the moment it arrives. A transport failure after retries ends the url (see fetchFailureOutcome).
 */
export const fetch: Stage = {
  name: 'fetch',
  run: async (page, { deps: d, clock, counters }) => {
    const recorded = await d.inflight.load(page.hash);
    if (recorded) {
      page.result = { ...recorded, text: undefined };
      page.completion.status = recorded.status;
      page.completion.fetchedAt = new Date().toISOString();
      return NEXT;
    }
    let result: FetchResult;
    try {
      result = await clock.time(
        'fetch',
        politeFetch(d.politeness, d.pageFetcher, page.entry.url, {
          etag: page.previous?.etag,
          lastModified: page.previous?.lastModified,
          // Bytes go to the extraction worker, which decodes them: no decode and no string copy on this thread.
          decode: false,
          pagesOnly: true,
          document: documentCap(d),
        }),
      );
    } catch (err) {
      page.completion.fetchedAt = new Date().toISOString();
      return done(fetchFailureOutcome(err), undefined, errorMessage(err));
    }
    page.completion.status = result.status;
    page.completion.fetchedAt = new Date().toISOString();
    if (result.rendering) counters.render(result.rendering.reason);
    await d.inflight.save(page.hash, result);
    page.result = result;
    return NEXT;
  },
};

/** The body cap of the documents the crawl reads; undefined when documents are off. */
function documentCap(d: PipelineDeps): ((contentType: string, url: string) => number | undefined) | undefined {
  const kind = d.documentKind;
  if (!kind) return undefined;
  const cap = d.documentMaxBytes;
  // An html answer (most of them) is not asked about.
  return (contentType, url) => (!isPageType(contentType) && kind(contentType, url) ? cap : undefined);
}

/** A transport failure after retries: over the cap is REJECTED_TOO_LARGE, anything else REJECTED_UNREACHABLE. */
export function fetchFailureOutcome(err: unknown): Outcome {
  return err instanceof FetchError && err.reason === 'too-large'
    ? Outcome.REJECTED_TOO_LARGE
    : Outcome.REJECTED_UNREACHABLE;
}
