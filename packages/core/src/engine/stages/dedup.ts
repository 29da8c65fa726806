import { ids, sha256Hex } from '../../ids.js';
import { Outcome } from '../../outcomes.js';
import { done, NEXT, type Stage } from '../page.js';

/** ContentDedupFilter's first half (seed 002): a revisited page whose text has not changed is not written again. */
export const unmodified: Stage = {
  name: 'unmodified',
  run: async (page, { deps: d }) => {
    page.resourceId = ids.resource(d.catalog.id, d.version, page.hash);
    page.textHash = sha256Hex(page.content.text);
    if (page.previous && page.previous.contentHash === page.textHash) {
      return done(Outcome.REJECTED_UNMODIFIED, undefined, 'same text');
    }
    return NEXT;
  },
};

/** ContentDedupFilter (seed 002; sha256 or simhash): the same text as another page is REJECTED_DUPLICATE. */
export const dedup: Stage = {
  name: 'dedup',
  run: async (page, { deps: d, clock }) => {
    const holder = await clock.time(
      'dedup',
      d.contentDedup.checkAndRecord(d.catalog.id, d.version, page.content.text, page.resourceId),
    );
    if (holder !== undefined && holder !== page.resourceId) {
      // Its links are not followed: a page that answers under endless urls (session ids) would offer endless more.
      page.completion.offer = undefined;
      return done(Outcome.REJECTED_DUPLICATE, undefined, `same content as resource ${holder}`);
    }
    page.textRecorded = true;
    return NEXT;
  },
};
