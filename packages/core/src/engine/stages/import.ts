import { DocumentError } from '../../content/documents/document-error.js';
import { errorMessage } from '../../errors.js';
import { Outcome } from '../../outcomes.js';
import { NEXT, type Stage } from '../page.js';
import { addOffer, followed, referringPage } from './links.js';

/**
 * Import (seed 002): a document — PDF, Word, text, Markdown, CSV — is read by its DocumentContentParser on the
 * document worker, under the size and time caps; what it gives is the page's content from here on (indexed and
 * vectored like a page's). One the parser cannot read (corrupt, too large, too slow) is REJECTED_IMPORT:<reason>.
 * An html page was read by its content extraction already.
 */
export const importDocument: Stage = {
  name: 'import',
  run: async (page, { deps: d, clock }) => {
    const kind = page.document;
    if (!kind || !d.parseDocument) return NEXT;
    const { body, contentType } = page.result;
    try {
      const doc = await clock.time('import', d.parseDocument(body, page.entry.url, contentType));
      page.content = doc;
      page.metadata = doc.metadata;
      return NEXT;
    } catch (err) {
      if (!(err instanceof DocumentError)) throw err;
      return { outcome: Outcome.REJECTED_IMPORT, detail: err.reason, why: `${kind.parser}: ${errorMessage(err)}` };
    }
  },
};

/**
 * Post-import links (seed 002): the links an importer found — a PDF's link annotations, a Word file's hyperlinks —
 * too late for link extraction, queued now (the catalog's `postImportLinks`; nofollow applies as to a page).
 */
export const postImportLinks: Stage = {
  name: 'post-import-links',
  run: async (page, { deps: d, queue }) => {
    if (!page.document || !d.catalog.settings.postImportLinks || page.robots.nofollow) return NEXT;
    const { entry, content } = page;
    if (content.links.length > 0)
      addOffer(
        page,
        await queue.offer(
          followed(content.links),
          entry.depth + 1,
          entry.url,
          0,
          true,
          undefined,
          referringPage(content),
        ),
      );
    return NEXT;
  },
};
