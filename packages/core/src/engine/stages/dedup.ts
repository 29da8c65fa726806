import { shortTextDiff } from '../../content/text-diff.js';
import { compareText, ONLY_VOLATILE } from '../../content/volatile-text.js';
import { ids, sha256Hex } from '../../ids.js';
import { Outcome } from '../../outcomes.js';
import { done, NEXT, type Stage } from '../page.js';

/**
 * ContentDedupFilter's first half (seed 002, the document checksum): a revisited page whose article has not changed
 * is not written again. Its text's sha256 against the one held first; when they differ, the text held is read back
 * and compared without its volatile parts (dates and times, relative times, counters, tokens: content/volatile-text.ts)
 * and within the catalog's near-duplicate distance (`changeDistance`, simhash bits): only volatile text differed →
 * REJECTED_UNMODIFIED "unchanged: only volatile text differed". A page that did change carries a short diff of its
 * text for the run's change set.
 */
export const unmodified: Stage = {
  name: 'unmodified',
  run: async (page, { deps: d, clock }) => {
    page.resourceId = ids.resource(d.catalog.id, d.version, page.hash);
    page.textHash = sha256Hex(page.content.text);
    const previous = page.previous;
    if (!previous) return NEXT;
    if (previous.contentHash === page.textHash) return done(Outcome.REJECTED_UNMODIFIED, undefined, 'same text');
    const before = previous.textPath ? await clock.time('dedup', d.blobs.getText(previous.textPath)) : undefined;
    // A page held without its text (a file deleted by hand) is changed: it is written again, with no diff to show.
    if (before === undefined) {
      page.textDiff = '';
      return NEXT;
    }
    const change = compareText(before, page.content.text, d.catalog.settings.changeDistance);
    if (change !== 'changed') return done(Outcome.REJECTED_UNMODIFIED, undefined, ONLY_VOLATILE);
    page.textDiff = shortTextDiff(before, page.content.text);
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
