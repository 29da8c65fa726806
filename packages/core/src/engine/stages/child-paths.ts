import { Outcome } from '../../outcomes.js';
import { NEXT, type PageInProgress, type PipelineContext, type Stage } from '../page.js';

/**
 * Child path extraction (seed 002, file-system source only): a folder's answer carries its `children` (the file
 * extractor lists them on a GET), which are offered one level deeper, and the folder ends as LISTED — no resource is
 * made of it. It sits right after the metadata filters, so a folder they refuse is never listed: exclude
 * `/archive/` once and nothing below it is read. Any other answer goes on to the next stage.
 */
export const children: Stage = {
  name: 'children',
  run: async (page: PageInProgress, ctx: PipelineContext) => {
    const children = page.fetched ? page.result.children : undefined;
    if (children === undefined) return NEXT;
    const { entry } = page;
    const offer = await ctx.queue.offer(children, entry.depth + 1, entry.url, 0, true);
    const had = page.completion.offer;
    if (had) {
      had.accepted.push(...offer.accepted);
      had.refused.push(...offer.refused);
    } else {
      page.completion.offer = offer;
    }
    const n = children.length;
    return { outcome: Outcome.LISTED, why: `${n} ${n === 1 ? 'entry' : 'entries'}` };
  },
};
