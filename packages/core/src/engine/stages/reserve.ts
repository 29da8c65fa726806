import { ABANDON, NEXT, type Stage } from '../page.js';

/**
 * The page limit (seed 000's maxPages): the page will be saved, so it takes its place under the limit now, or is
 * abandoned when there is none (its lease stays, outstanding).
 */
export const reserve: Stage = {
  name: 'reserve',
  run: async (page, { limit }) => {
    if (!(await limit.reserve())) return ABANDON;
    page.reserved = true;
    return NEXT;
  },
};
