import { errorMessage } from '../../errors.js';
import { NEXT, type Stage } from '../page.js';
import { politeFetch } from '../polite-fetch.js';
import { fetchFailureOutcome } from './fetch.js';
import { judgeStatus } from './status.js';

/** Answers of a site that does not do HEAD: the metadata stages wait for the GET instead. */
const NO_HEAD = new Set([400, 403, 405, 406, 501]);

/**
 * The metadata pass (seed 002's fetch directive METADATA): with the catalog's `headPass` on (always for a folder
 * source, where it is a file attribute read), a HEAD request before the GET, under the host's politeness like any
 * request. Its status is judged as a GET's would be (a 3xx dispatches its target, 404 is REJECTED_NOTFOUND, …), so
 * the metadata stages can refuse the document before its body is fetched. A site that refuses HEAD (405, 501, …)
 * gets the GET alone. Skipped when the GET's answer is already in the write-ahead log (a resumed url).
 */
export const head: Stage = {
  name: 'head',
  run: async (page, ctx) => {
    const d = ctx.deps;
    if (!d.catalog.settings.headPass && !page.entry.url.startsWith('file:')) return NEXT;
    if (d.inflight.has(page.hash)) return NEXT;
    let head: Awaited<ReturnType<typeof d.pageFetcher.fetch>>;
    try {
      head = await ctx.clock.time(
        'head',
        politeFetch(d.politeness, d.pageFetcher, page.entry.url, {
          method: 'HEAD',
          etag: page.previous?.etag,
          lastModified: page.previous?.lastModified,
        }),
      );
    } catch (err) {
      page.completion.fetchedAt = new Date().toISOString();
      return { outcome: fetchFailureOutcome(err), detail: 'head', why: errorMessage(err) };
    }
    if (NO_HEAD.has(head.status)) return NEXT;
    page.head = head;
    page.completion.status = head.status;
    return judgeStatus(page, head, ctx);
  },
};
