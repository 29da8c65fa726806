import { Outcome } from '../../outcomes.js';
import { canonicalFromLinkHeader } from '../flow/link-header.js';
import { NEXT, type PageInProgress, type PipelineContext, type Stage, type StageVerdict } from '../page.js';
import { addOffer } from './links.js';

/** Noncanonical copies one run remembers, to break a loop of two pages naming each other. */
const MAX_REMEMBERED = 100_000;
const named = new WeakMap<PipelineContext['queue'], Map<string, string>>();

function namedCanonicals(ctx: PipelineContext): Map<string, string> {
  let m = named.get(ctx.queue);
  if (!m) {
    m = new Map();
    named.set(ctx.queue, m);
  }
  return m;
}

/**
 * The canonical check (seed 002), after the HEAD (`Link: <…>; rel=canonical`) and after the GET (`<link
 * rel=canonical>`): a page naming another url as canonical is REJECTED_NONCANONICAL when that url belongs to the
 * catalog — it is queued instead (at the page's own depth, first), or was already. A canonical the acceptors refuse
 * (outside the catalog: Sphinx sites name their public host) is recorded — its refusal in the ledger, the count
 * `canonical-outside` in the report — and the page is kept. Two pages naming each other: the second one is kept.
 */
export async function canonicalCheck(
  page: PageInProgress,
  ctx: PipelineContext,
  declared: string | null | undefined,
  source: 'link-header' | 'html',
): Promise<StageVerdict> {
  if (!declared || !ctx.deps.catalog.settings.canonical) return NEXT;
  const { entry } = page;
  const target = ctx.queue.canonical(declared, entry.url);
  if (!target || target === entry.url) return NEXT;
  const remembered = namedCanonicals(ctx);
  if (remembered.get(target) === entry.url) return NEXT;
  const seen = ctx.queue.seen(target);
  if (seen === 'refused') return outside(page, ctx, target);
  if (seen === undefined) {
    const offer = await ctx.queue.offer([target], entry.depth, entry.url, -1, true);
    if (offer.accepted.length === 0) {
      addOffer(page, offer);
      return outside(page, ctx, target);
    }
    addOffer(page, offer);
  }
  if (remembered.size < MAX_REMEMBERED) remembered.set(entry.url, target);
  return { outcome: Outcome.REJECTED_NONCANONICAL, detail: source, why: `canonical is ${target}` };
}

function outside(page: PageInProgress, ctx: PipelineContext, target: string): StageVerdict {
  ctx.counters.note('canonical-outside', `${page.entry.url}: canonical ${target} is outside the catalog`);
  return NEXT;
}

/** After the metadata pass or the GET: the `Link` header's canonical. */
export function canonicalFromHeaders(page: PageInProgress, ctx: PipelineContext, headers: Record<string, string>) {
  return canonicalCheck(page, ctx, canonicalFromLinkHeader(headers.link, page.entry.url), 'link-header');
}

/** After extraction: the page's `<link rel=canonical>`. */
export const canonical: Stage = {
  name: 'canonical',
  run: async (page, ctx) => (page.document ? NEXT : canonicalCheck(page, ctx, page.content.canonical, 'html')),
};
