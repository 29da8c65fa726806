import { Outcome } from '../outcomes.js';
import { isFileUrl } from '../url/file-url.js';
import type { AcceptorFactory } from './acceptor.js';
import { ACCEPT, refuse } from './verdict.js';

/**
 * Asks ctx.robots whether robots.txt allows the url. Active only when catalog.settings.robots is on and a
 * RobotsProvider is given (without one there is nothing to ask, as with an unset robotsTxtProvider).
 * Refuses with REJECTED_ROBOTS_TXT; with REJECTED_UNREACHABLE when the origin gave no answer at all for its
 * robots.txt (connection refused, no such host, timed out): the site did not answer, it did not disallow. A `file:`
 * url (a folder's catalog) has no robots.txt: always accepted.
 */
export const robotsTxt: AcceptorFactory = (ctx) => {
  const name = 'robots-txt';
  const robots = ctx.catalog.settings.robots ? ctx.robots : undefined;
  if (robots === undefined || isFileUrl(ctx.catalog.url)) return { name, check: () => ACCEPT };
  return {
    name,
    async check(candidate) {
      if (await robots.isAllowed(candidate.url)) return ACCEPT;
      const reason = robots.reason ? await robots.reason(candidate.url) : 'disallowed by robots.txt';
      const silent = (await robots.unreachable?.(candidate.url)) === true;
      return refuse(name, silent ? Outcome.REJECTED_UNREACHABLE : Outcome.REJECTED_ROBOTS_TXT, reason);
    },
  };
};
