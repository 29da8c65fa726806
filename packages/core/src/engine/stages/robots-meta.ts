import { Outcome } from '../../outcomes.js';
import { combineDirectives, xRobotsTag } from '../flow/robots-directives.js';
import { done, NEXT, type Stage } from '../page.js';

/**
 * Robots meta (seed 002), read: the `X-Robots-Tag` header (of the GET, or the HEAD) together with the page's
 * `<meta name="robots">`. Link extraction runs next and acts on nofollow; the noindex stage after it acts on noindex,
 * so a noindex page still contributes its links.
 */
export const robots: Stage = {
  name: 'robots',
  run: async (page, { deps: d }) => {
    const header = page.result.headers['x-robots-tag'] ?? page.head?.headers['x-robots-tag'];
    const fromHeader = xRobotsTag(header, d.settings.userAgent);
    if (fromHeader.nofollow) page.headerNofollow = true;
    page.robots = page.document ? fromHeader : combineDirectives(fromHeader, page.content.robots);
    return NEXT;
  },
};

/** Robots meta (seed 002), acted on: noindex (`<meta name="robots">` or `X-Robots-Tag`) is REJECTED_ROBOTS_META_NOINDEX. */
export const noindex: Stage = {
  name: 'noindex',
  run: async (page) =>
    page.robots.noindex
      ? done(
          Outcome.REJECTED_ROBOTS_META_NOINDEX,
          undefined,
          // The meta tag is the usual case (no why); the header is said.
          page.extracted && page.content.robots.noindex ? undefined : 'X-Robots-Tag',
        )
      : NEXT,
};
