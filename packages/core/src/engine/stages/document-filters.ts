import { Outcome } from '../../outcomes.js';
import { refuseByContent } from '../flow/filters.js';
import { NEXT, type Stage } from '../page.js';

/**
 * Document filters (seed 002): the catalog's `documentFilters` on what a document holds — its text, title, url or
 * type — REJECTED_FILTER:document. Registered before the import (an html page, already extracted) and after it
 * (a document, once its parser has read it); each page is judged once.
 */
export const documentFilters: Stage = {
  name: 'document-filters',
  run: async (page, { deps: d }) => {
    if (page.contentJudged || !page.extracted) return NEXT;
    page.contentJudged = true;
    const refusal = refuseByContent(d.catalog.settings.documentFilters, {
      url: page.entry.url,
      title: page.content.title,
      text: page.content.text,
      contentType: page.result.contentType,
    });
    return refusal ? { outcome: Outcome.REJECTED_FILTER, detail: 'document', why: refusal.why } : NEXT;
  },
};
