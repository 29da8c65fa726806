import { combineDirectives, xRobotsTag } from '../flow/robots-directives.js';
import { NEXT, type Stage } from '../page-pipeline.js';

/**
 * Robots directives, read (seed 002): the `X-Robots-Tag` header (of the GET, or the HEAD) together with the page's
 * `<meta name="robots">`. Link extraction runs next and acts on nofollow; the noindex stage after it acts on noindex,
 * so a noindex page still contributes its links.
 */
export const robotsDirectives: Stage = async (page, { deps: d }) => {
  const header = page.result.headers['x-robots-tag'] ?? page.head?.headers['x-robots-tag'];
  const fromHeader = xRobotsTag(header, d.settings.userAgent);
  if (fromHeader.nofollow) page.headerNofollow = true;
  page.robots = page.document ? fromHeader : combineDirectives(fromHeader, page.content.robots);
  return NEXT;
};
