import { Outcome } from '../outcomes.js';
import type { AcceptorFactory } from './acceptor.js';
import { catalogScopeUrl, tryParseUrl } from './catalog-scope.js';
import { ACCEPT, refuse } from './verdict.js';

/**
 * Mandatory. A url must sit under catalog.url: same host (and port), scheme-blind, its path and query starting with
 * catalog.url's path, and the character after that prefix being `/`, `?`, `#` or the end, so `/doc` does not admit
 * `/docs`. A prefix ending in `/` admits everything below it. catalog.url's own query is not part of the prefix.
 * Refuses with REJECTED_OUT_OF_SCOPE.
 *
 * This is why a catalog.url pointing deep into a site (or at `/index.html`) saves exactly one page:
 * url is the boundary, start-url only where fetching begins.
 */
export const startUrlPrefix: AcceptorFactory = (ctx) => {
  const name = 'start-url-prefix';
  const scope = catalogScopeUrl(ctx.catalog);
  const host = scope.host;
  const prefix = scope.pathname;
  const open = prefix.endsWith('/');
  return {
    name,
    mandatory: true,
    check(candidate) {
      const url = tryParseUrl(candidate.url);
      if (url === undefined) return refuse(name, Outcome.REJECTED_OUT_OF_SCOPE, 'not a valid url');
      if (url.host !== host) return refuse(name, Outcome.REJECTED_OUT_OF_SCOPE, `host ${url.host} is not ${host}`);
      const rest = url.pathname + url.search;
      if (rest.startsWith(prefix)) {
        const next = rest.charAt(prefix.length);
        if (open || next === '' || next === '/' || next === '?' || next === '#') return ACCEPT;
      }
      return refuse(name, Outcome.REJECTED_OUT_OF_SCOPE, `path ${url.pathname} is not under ${prefix}`);
    },
  };
};
