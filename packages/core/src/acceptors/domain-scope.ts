import { Outcome } from '../outcomes.js';
import { registrableDomain } from '../url/registrable-domain.js';
import type { AcceptorFactory } from './acceptor.js';
import { catalogScopeUrl, tryParseUrl } from './catalog-scope.js';
import { ACCEPT, refuse } from './verdict.js';

/**
 * Mandatory. A url must have the same registrable domain as catalog.url (any subdomain, any scheme, any port).
 * Refuses with REJECTED_OUT_OF_SCOPE.
 */
export const domainScope: AcceptorFactory = (ctx) => {
  const name = 'domain-scope';
  const domain = registrableDomain(catalogScopeUrl(ctx.catalog).hostname);
  return {
    name,
    mandatory: true,
    check(candidate) {
      const url = tryParseUrl(candidate.url);
      if (url === undefined) return refuse(name, Outcome.REJECTED_OUT_OF_SCOPE, 'not a valid url');
      const d = registrableDomain(url.hostname);
      return d === domain ? ACCEPT : refuse(name, Outcome.REJECTED_OUT_OF_SCOPE, `domain ${d} is not ${domain}`);
    },
  };
};
