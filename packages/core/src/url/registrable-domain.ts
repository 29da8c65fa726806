import { getDomain } from 'tldts-experimental';

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * tldts (its compact build, tldts-experimental: docs/libraries.md) reads the whole Public Suffix List, private section included (`allowPrivateDomains`): on hosting platforms
 * such as `github.io`, `blogspot.com` or `s3.amazonaws.com` every subdomain belongs to someone else, so
 * `user.github.io` is its own registrable domain, not `github.io`. Hosts are passed already extracted; hostname
 * validation is off so that names the crawler can still fetch (an `_` in a label) keep their domain.
 */
const TLDTS_OPTIONS = { allowPrivateDomains: true, extractHostname: false, validateHostname: false } as const;

/**
 * The registrable domain ("eTLD+1") of a host, from the Public Suffix List (ICANN and private sections):
 * `docs.python.org` → `python.org`, `a.b.co.uk` → `b.co.uk`, `user.github.io` → `user.github.io`,
 * `x.example.gov.bd` → `example.gov.bd`.
 *
 * IP addresses, `localhost`, single-label hosts and hosts that are themselves a public suffix (`github.io`,
 * `co.uk`) are returned as they are (lowercased, without brackets or a trailing dot).
 */
export function registrableDomain(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  h = h.replace(/\.+$/, '');
  if (h.includes(':') || IPV4.test(h) || h === 'localhost' || !h.includes('.')) return h;
  return getDomain(h, TLDTS_OPTIONS) ?? h;
}
