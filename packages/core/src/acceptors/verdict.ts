import type { Outcome } from '../outcomes.js';
import type { Verdict } from './acceptor.js';

/** The one accepting verdict (frozen, shared). */
export const ACCEPT: Verdict = Object.freeze({ accept: true });

/** A refusal by `acceptor` with its REJECTED_* outcome and a reason for the debug log. */
export function refuse(acceptor: string, outcome: Outcome, reason: string): Verdict {
  return { accept: false, acceptor, outcome, reason };
}
