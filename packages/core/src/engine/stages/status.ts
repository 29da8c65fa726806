import type { FetchResult } from '../../fetch/extractor.js';
import { Outcome } from '../../outcomes.js';
import { done, NEXT, type PageInProgress, type PipelineContext, type Stage, type StageVerdict } from '../page.js';
import { storedLinks } from './known-url.js';

/**
 * Status and redirect (seed 002's redirect dispatch): a 3xx's Location is offered as a url of its own, carrying the
 * chain that led to it. A Location back to a url of the chain is REJECTED_REDIRECT_LOOP; a url reached after
 * GF_MAX_REDIRECTS redirects that redirects again is REJECTED_TOO_MANY_REDIRECTS (its target is not offered). 304
 * unmodified, 404/410 not found, other ≥ 400 bad status.
 */
export const status: Stage = {
  name: 'status',
  run: (page, ctx) => judgeStatus(page, page.result, ctx),
};

/** The status stage's judgement of an answer: the GET's, or the HEAD's of the metadata pass. */
export async function judgeStatus(
  page: PageInProgress,
  answer: FetchResult,
  ctx: PipelineContext,
): Promise<StageVerdict> {
  const { status, headers } = answer;
  const { entry } = page;
  if (status >= 300 && status < 400 && status !== 304) {
    const location = headers.location;
    const target = location ? ctx.queue.canonical(location, entry.url) : undefined;
    if (!target) return done(Outcome.REJECTED_REDIRECT, undefined, `HTTP ${status} to ${location ?? '(no Location)'}`);
    const hops = entry.redirects ?? 0;
    const chain = [...(entry.redirectChain ?? []), entry.url];
    if (chain.includes(target)) {
      return done(
        Outcome.REJECTED_REDIRECT_LOOP,
        undefined,
        `HTTP ${status} back to ${[...chain, target].join(' -> ')}`,
      );
    }
    const max = ctx.deps.settings.maxRedirects;
    if (hops >= max) {
      return done(
        Outcome.REJECTED_TOO_MANY_REDIRECTS,
        undefined,
        `HTTP ${status} to ${target} after ${hops} redirects from ${chain[0]} (GF_MAX_REDIRECTS ${max})`,
      );
    }
    page.completion.offer = await ctx.queue.offer([target], entry.depth, entry.url, -1, true, {
      redirects: hops + 1,
      redirectChain: chain,
    });
    return done(Outcome.REJECTED_REDIRECT, undefined, `HTTP ${status} to ${location}`);
  }
  if (status === 304) {
    if (page.previous) page.completion.offer = await storedLinks(page, ctx);
    return done(Outcome.REJECTED_UNMODIFIED, undefined, 'HTTP 304');
  }
  if (status === 404 || status === 410) {
    if (page.previous && ctx.deps.onGone) {
      await ctx.deps.onGone(page.previous);
      page.completion.changed = true;
    }
    return done(Outcome.REJECTED_NOTFOUND, undefined, `HTTP ${status}`);
  }
  if (status >= 400) return done(Outcome.REJECTED_BAD_STATUS, String(status), `HTTP ${status}`);
  return NEXT;
}
