import type { CatalogRef, Greenfinger } from '@greenfinger/core';
import type { Auth } from './auth/auth.js';

/** What every route module works with. */
export interface ApiContext {
  gf: Greenfinger;
  auth: Auth;
  /** When this server started (ms since the epoch). */
  startedAt: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A catalog named in a path: its id when it looks like one, else its name. */
export function catalogRef(ref: string): CatalogRef {
  return UUID.test(ref) ? { id: ref } : { name: ref };
}
