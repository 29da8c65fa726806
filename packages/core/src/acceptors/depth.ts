import { Outcome } from '../outcomes.js';
import type { AcceptorFactory } from './acceptor.js';
import { ACCEPT, refuse } from './verdict.js';

/**
 * Refuses a url deeper than catalog.settings.depth links from the start url (-1 = unlimited): REJECTED_TOO_DEEP.
 * The limit is read at each check from the run's `limits` when it has them, so a running job's limit can change.
 */
export const maxDepth: AcceptorFactory = (ctx) => {
  const name = 'depth';
  const limits = ctx.limits ?? { depth: ctx.catalog.settings.depth };
  return {
    name,
    check(candidate) {
      const max = limits.depth;
      return max >= 0 && candidate.depth > max
        ? refuse(name, Outcome.REJECTED_TOO_DEEP, `depth ${candidate.depth} is beyond ${max}`)
        : ACCEPT;
    },
  };
};
