/**
 * Multi-label public suffixes recognised by registrableDomain. A small built-in list, not the Public Suffix List:
 * common country second levels and the hosting platforms where every subdomain belongs to someone else.
 */
const MULTI_LABEL_SUFFIXES: ReadonlySet<string> = new Set([
  // country second levels
  ...['co', 'org', 'ac', 'gov', 'ltd', 'plc', 'me', 'net', 'sch', 'nhs', 'police'].map((l) => `${l}.uk`),
  ...['com', 'net', 'org', 'edu', 'gov', 'asn', 'id'].map((l) => `${l}.au`),
  ...['co', 'net', 'org', 'govt', 'ac', 'school', 'geek', 'gen', 'kiwi'].map((l) => `${l}.nz`),
  ...['co', 'ne', 'or', 'ac', 'go', 'ad', 'ed', 'gr', 'lg'].map((l) => `${l}.jp`),
  ...['co', 'or', 'ne', 'go', 'ac', 're', 'pe'].map((l) => `${l}.kr`),
  ...['com', 'net', 'org', 'gov', 'edu', 'art', 'blog', 'eco', 'nom'].map((l) => `${l}.br`),
  ...['com', 'net', 'org', 'gov', 'edu', 'ac'].map((l) => `${l}.cn`),
  ...['com', 'net', 'org', 'gov', 'edu', 'idv'].map((l) => `${l}.tw`),
  ...['com', 'net', 'org', 'gov', 'edu', 'idv'].map((l) => `${l}.hk`),
  ...['com', 'net', 'org', 'gov', 'edu'].map((l) => `${l}.sg`),
  ...['co', 'net', 'org', 'ac', 'gov', 'firm', 'gen', 'ind', 'edu', 'res'].map((l) => `${l}.in`),
  ...['co', 'org', 'gov', 'ac', 'net', 'web'].map((l) => `${l}.za`),
  ...['com', 'org', 'gob', 'edu', 'net'].map((l) => `${l}.mx`),
  ...['com', 'org', 'gob', 'edu', 'net'].map((l) => `${l}.ar`),
  ...['com', 'org', 'gov', 'edu', 'net', 'gen', 'web'].map((l) => `${l}.tr`),
  ...['co', 'org', 'ac', 'gov', 'net', 'muni'].map((l) => `${l}.il`),
  ...['com', 'org', 'gov', 'edu', 'net', 'in'].map((l) => `${l}.ua`),
  ...['co', 'or', 'ac', 'go', 'web', 'my', 'sch'].map((l) => `${l}.id`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.my`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.ph`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.vn`),
  ...['co', 'ac', 'go', 'in', 'or'].map((l) => `${l}.th`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.pk`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.eg`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.sa`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.ng`),
  ...['co', 'or', 'ac', 'go'].map((l) => `${l}.ke`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.co`),
  ...['com', 'org', 'gob', 'edu', 'net'].map((l) => `${l}.pe`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.pl`),
  ...['co', 'or', 'ac', 'gv'].map((l) => `${l}.at`),
  ...['com', 'org', 'gob', 'edu', 'nom'].map((l) => `${l}.es`),
  ...['com', 'org', 'gov', 'edu'].map((l) => `${l}.pt`),
  ...['com', 'org', 'gov', 'edu', 'net'].map((l) => `${l}.gr`),
  'co.hu',
  // hosting platforms (PSL private section)
  'github.io',
  'gitlab.io',
  'readthedocs.io',
  'netlify.app',
  'vercel.app',
  'pages.dev',
  'workers.dev',
  'web.app',
  'firebaseapp.com',
  'appspot.com',
  'herokuapp.com',
  'blogspot.com',
  'wordpress.com',
  'azurewebsites.net',
  'cloudfront.net',
  'fly.dev',
  'onrender.com',
  'surge.sh',
  'glitch.me',
  'neocities.org',
  'now.sh',
  's3.amazonaws.com',
]);

const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * The registrable domain ("eTLD+1") of a host: `docs.python.org` → `python.org`, `a.b.co.uk` → `b.co.uk`,
 * `user.github.io` → `user.github.io`.
 *
 * IP addresses, `localhost` and single-label hosts are returned as they are (lowercased, without brackets or a
 * trailing dot). Limitation: only the built-in list of multi-label suffixes is known, not the whole Public Suffix
 * List; a host under an unlisted multi-label suffix (e.g. `x.example.gov.bd`) yields that suffix itself
 * (`gov.bd`), which scopes more widely than it should. Extend the list when a crawl needs it.
 */
export function registrableDomain(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  h = h.replace(/\.+$/, '');
  if (h.includes(':') || IPV4.test(h) || h === 'localhost' || !h.includes('.')) return h;
  const labels = h.split('.');
  for (const n of [3, 2]) {
    if (labels.length > n && MULTI_LABEL_SUFFIXES.has(labels.slice(-n).join('.'))) {
      return labels.slice(-(n + 1)).join('.');
    }
  }
  if (labels.length === 2 && MULTI_LABEL_SUFFIXES.has(h)) return h;
  return labels.slice(-2).join('.');
}
