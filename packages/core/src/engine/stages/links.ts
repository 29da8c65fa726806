import type { ExtractedContent } from '../../content/content-extractor.js';
import type { ReferringPage } from '../../frontier/prioritizer.js';
import { NEXT, type PageInProgress, type Stage } from '../page.js';
import type { Offer, OfferedLink } from '../queue-pipeline.js';

/**
 * Link extraction (seed 002): links are offered before anything can reject the page, so a noindex page still
 * contributes its links. A nofollow page (`<meta name=robots>` or `X-Robots-Tag`) offers none, and a `rel=nofollow`
 * link is not followed. A document's links come later, from its importer (post-import links).
 */
export const links: Stage = {
  name: 'links',
  run: async (page, { queue }) => {
    if (page.document || page.robots.nofollow) return NEXT;
    const { content, entry } = page;
    const from = referringPage(content);
    addOffer(page, await queue.offer(followed(content.links), entry.depth + 1, entry.url, 0, true, undefined, from));
    return NEXT;
  },
};

/** What the prioritizer reads of the page a link was found on: its article's length and its link density. */
export function referringPage(content: Pick<ExtractedContent, 'text' | 'linkDensity'>): ReferringPage {
  return { textLength: content.text.length, linkDensity: content.linkDensity };
}

/**
 * The links a page's robots directives let the crawl follow: every link but the `rel=nofollow` ones, each with the
 * form it was written in when normalisation changed it.
 */
export function followed(found: ExtractedContent['links']): OfferedLink[] {
  const urls: OfferedLink[] = [];
  for (const l of found) if (!l.nofollow) urls.push(l);
  return urls;
}

/** Add links to what the url offers at commit (a canonical url, the page's links, a document's links). */
export function addOffer(page: PageInProgress, offer: Offer): void {
  const had = page.completion.offer;
  if (!had) page.completion.offer = offer;
  else {
    had.accepted.push(...offer.accepted);
    had.refused.push(...offer.refused);
  }
}
