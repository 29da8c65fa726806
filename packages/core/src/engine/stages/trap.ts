import { Outcome } from '../../outcomes.js';
import { done, NEXT, type Stage } from '../page.js';

/**
 * The trap budget (seed 002's trap detection, per host): a queued url whose shape was blocked after duplicate pages
 * in a row (trap-budget.ts) ends as REJECTED_TRAP:duplicates-in-a-row without a request. The other trap rules refuse
 * urls before they are queued.
 */
export const trap: Stage = {
  name: 'trap',
  run: async (page, { queue }) => {
    const blocked = queue.traps.blocked(page.entry.url);
    return blocked ? done(Outcome.REJECTED_TRAP, blocked.rule, blocked.reason) : NEXT;
  },
};
