import { isPageType, looksBinary } from '../../fetch/content-type.js';
import { Outcome } from '../../outcomes.js';
import { done, NEXT, type Stage } from '../page.js';

/**
 * The markup check (seed 002): not html (see `isPageType`) is REJECTED_NOT_MARKUP, the body abandoned after the
 * headers, unless a document parser reads it. A binary served as html (a picture, a PDF, an archive: see
 * `looksBinary`) is not markup either, whatever its header says.
 */
export const markup: Stage = {
  name: 'markup',
  run: async (page, { deps: d }) => {
    const { contentType, body } = page.result;
    if (!isPageType(contentType)) {
      page.document = d.documentKind?.(contentType, page.entry.url);
      if (page.document) return NEXT;
      return done(Outcome.REJECTED_NOT_MARKUP, contentType.split(';')[0] || 'unknown');
    }
    if (looksBinary(body)) {
      // A document served without a type (or as html): its url's extension may still say what it is.
      page.document = d.documentKind?.('application/octet-stream', page.entry.url);
      if (page.document) return NEXT;
      return done(Outcome.REJECTED_NOT_MARKUP, 'binary', `binary bytes served as ${contentType || 'html'}`);
    }
    return NEXT;
  },
};

/**
 * The markup check's second half, the render check: a page the browser rendered that was still a shell when the
 * settle wait ran out is REJECTED_UNRENDERED:<reason>.
 */
export const render: Stage = {
  name: 'render',
  run: async (page) => {
    const r = page.result.rendering;
    if (r?.outcome !== 'unrendered') return NEXT;
    return done(Outcome.REJECTED_UNRENDERED, r.reason, `still a shell after ${r.ms} ms in the browser`);
  },
};
