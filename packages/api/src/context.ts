import type { CatalogRef, Greenfinger, SearchRequest, SearchResponse } from '@greenfinger/core';
import type { Auth } from './auth/auth.js';

/** What every route module works with. */
export interface ApiContext {
  gf: Greenfinger;
  auth: Auth;
  /** When this server started (ms since the epoch). */
  startedAt: number;
  /** Run a search: by words (and a blank query) on the search threads, by meaning and hybrid in this thread. */
  search(req: SearchRequest): Promise<SearchResponse>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A catalog named in a path: its id when it looks like one, else its name. */
export function catalogRef(ref: string): CatalogRef {
  return UUID.test(ref) ? { id: ref } : { name: ref };
}
