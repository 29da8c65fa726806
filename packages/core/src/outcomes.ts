/**
 * Every drop has a name (crawl flow seed: "a named REJECTED_* outcome for every drop").
 * The report groups them into Greenfinger's url counters.
 */
export const Outcome = {
  SAVED: 'SAVED',
  REJECTED_FILTER: 'REJECTED_FILTER', // an acceptor refused it (which one is recorded beside)
  REJECTED_ROBOTS_TXT: 'REJECTED_ROBOTS_TXT',
  REJECTED_TOO_DEEP: 'REJECTED_TOO_DEEP',
  REJECTED_OUT_OF_SCOPE: 'REJECTED_OUT_OF_SCOPE',
  REJECTED_ASSET: 'REJECTED_ASSET',
  REJECTED_KNOWN: 'REJECTED_KNOWN', // ExistingUrlPathFilter: already known in this version
  REJECTED_DUPLICATE: 'REJECTED_DUPLICATE', // same content as another page of this version
  REJECTED_NOTFOUND: 'REJECTED_NOTFOUND', // 404 / 410
  REJECTED_BAD_STATUS: 'REJECTED_BAD_STATUS', // any other unusable status
  REJECTED_UNREACHABLE: 'REJECTED_UNREACHABLE', // connection refused, DNS, timeout after retries
  REJECTED_NOT_MARKUP: 'REJECTED_NOT_MARKUP', // a non-markup response is not saved as a page
  REJECTED_TOO_LARGE: 'REJECTED_TOO_LARGE',
  REJECTED_REDIRECT: 'REJECTED_REDIRECT', // a 3xx: its target is dispatched as a url of its own
  REJECTED_UNMODIFIED: 'REJECTED_UNMODIFIED', // 304 or same content on a refresh
  REJECTED_ROBOTS_META_NOINDEX: 'REJECTED_ROBOTS_META_NOINDEX',
  REJECTED_TRAP: 'REJECTED_TRAP', // a host's trap budget tripped (the rule is recorded beside)
  REJECTED_TOO_MANY_REDIRECTS: 'REJECTED_TOO_MANY_REDIRECTS', // a redirect chain longer than GF_MAX_REDIRECTS
  REJECTED_REDIRECT_LOOP: 'REJECTED_REDIRECT_LOOP', // a redirect chain that comes back to a url on it
  REJECTED_BAD_IMAGE: 'REJECTED_BAD_IMAGE', // a picture whose bytes are not a sane image (pictures, not urls)
  REJECTED_UNRENDERED: 'REJECTED_UNRENDERED', // rendered in the browser and still a shell when the wait ran out
  REJECTED_NONCANONICAL: 'REJECTED_NONCANONICAL', // the page names another url of the catalog as canonical (queued)
  REJECTED_PREMATURE: 'REJECTED_PREMATURE', // an incremental run: not due yet (sitemap lastmod, changefreq, minimum frequency)
  REJECTED_IMPORT: 'REJECTED_IMPORT', // the importer (a DocumentContentParser) could not read the document
  LISTED: 'LISTED', // a folder of a file-system source: its children were queued, the folder itself is no resource
  REJECTED_ORPHAN: 'REJECTED_ORPHAN', // held from an earlier session, not reached by this one: removed at its end (orphans: delete)
  REJECTED_ERROR: 'REJECTED_ERROR', // something threw
  REJECTED_ABANDONED: 'REJECTED_ABANDONED', // the run ended before it was handled
} as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];
