import { Outcome } from '../../outcomes.js';
import { refuseByMetadata } from '../flow/filters.js';
import { xRobotsTag } from '../flow/robots-directives.js';
import { NEXT, type PageInProgress, type Stage } from '../page.js';
import { canonicalFromHeaders } from './canonical.js';
import { storedLinks } from './known-url.js';

/**
 * The metadata stages of seed 002, run once: on the HEAD's answer when the metadata pass is on, else on the GET's
 * (registered after both; the first to find an answer runs them). In order:
 * - metadata filters (the catalog's `metadataFilters`): REJECTED_FILTER:metadata;
 * - the canonical check on the `Link` header: REJECTED_NONCANONICAL:link-header;
 * - the metadata checksum on an incremental run: the same ETag, or the same Last-Modified and length, as the page
 *   held is REJECTED_UNMODIFIED (its stored links followed), whether or not the server honoured the conditional GET.
 */
export const metadata: Stage = {
  name: 'metadata',
  run: async (page, ctx) => {
    if (page.metadataJudged) return NEXT;
    const answer = page.head ?? (page.fetched ? page.result : undefined);
    if (!answer) return NEXT;
    page.metadataJudged = true;
    const headers = { 'content-type': answer.contentType, ...answer.headers };
    const refusal = refuseByMetadata(ctx.deps.catalog.settings.metadataFilters, headers);
    if (refusal) return { outcome: Outcome.REJECTED_FILTER, detail: 'metadata', why: refusal.why };
    const canonical = await canonicalFromHeaders(page, ctx, answer.headers);
    if (canonical !== NEXT) return canonical;
    const unchanged = ctx.deps.known === 'revisit' ? sameMetadata(page, answer.headers) : undefined;
    if (!unchanged) return NEXT;
    if (xRobotsTag(answer.headers['x-robots-tag'], ctx.deps.settings.userAgent).nofollow) page.headerNofollow = true;
    page.completion.offer = await storedLinks(page, ctx);
    return { outcome: Outcome.REJECTED_UNMODIFIED, why: unchanged };
  },
};

/** Why the page held has the same metadata checksum as this answer, or undefined. */
function sameMetadata(page: PageInProgress, headers: Record<string, string>): string | undefined {
  const held = page.previous;
  if (!held) return undefined;
  const etag = headers.etag;
  // A weak validator says "equivalent", not "the same bytes": it is not a checksum.
  if (etag && held.etag && !etag.startsWith('W/') && etag === held.etag) return `same ETag ${etag}`;
  const lastModified = headers['last-modified'];
  const length = Number(headers['content-length']);
  const identity = (headers['content-encoding'] ?? 'identity') === 'identity';
  if (
    lastModified &&
    held.lastModified === lastModified &&
    identity &&
    Number.isFinite(length) &&
    length === held.htmlBytes
  ) {
    return `same Last-Modified ${lastModified} and length ${length}`;
  }
  return undefined;
}
