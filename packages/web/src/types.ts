/**
 * The page's own types. The shapes of the API's answers are not here: they are generated from the API's description
 * into api-types.gen.ts (`node packages/web/scripts/api-types.mjs`).
 */
import type { Counters } from './api-types.gen';

/** Who is signed in, kept in sessionStorage: the token and what the API said about it. */
export interface Session {
  token: string;
  username: string;
  roles: string[];
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** The counters a catalog's screen shows: a live job's, or those of a report's `urls` and `produced` with its time. */
export type CounterView = Partial<Counters> & { elapsedMs?: number };
