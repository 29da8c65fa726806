import { Outcome } from '../outcomes.js';
import type { AcceptorFactory } from './acceptor.js';
import { ACCEPT, refuse } from './verdict.js';

/** Refuses a url deeper than catalog.settings.depth links from the start url (-1 = unlimited): REJECTED_TOO_DEEP. */
export const maxDepth: AcceptorFactory = (ctx) => {
  const name = 'depth';
  const max = ctx.catalog.settings.depth;
  return {
    name,
    check(candidate) {
      return max >= 0 && candidate.depth > max
        ? refuse(name, Outcome.REJECTED_TOO_DEEP, `depth ${candidate.depth} is beyond ${max}`)
        : ACCEPT;
    },
  };
};
