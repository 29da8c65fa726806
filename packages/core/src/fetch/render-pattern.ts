/**
 * The url pattern the render memory keys its counts by (with the host): pages of one pattern are built by one
 * template, so they need a browser or not alike.
 *
 * The rule, on the path (the query is ignored):
 * - the last segment is the page itself (a slug, an id, a file): it becomes `*`, keeping a file extension
 *   (`/docs/intro.html` → `/docs/*.html`); a path ending in `/` keeps its empty last segment (`/blog/` stays);
 * - any other segment that looks like an id becomes `*`: digits only, four digits or more anywhere (dates, slugs
 *   with an id), a UUID, or hex of 8 characters or more with a digit (so `/p/123/reviews` and `/p/456/reviews` share
 *   one pattern; docs/rendering.md lists examples);
 * - segments past the eighth are folded into one `**`;
 * - a hash route (`#/…` or `#!/…`) adds `#/*` or `#!/*` (`/app/#/users/7` → `/app/#/*`); other fragments are
 *   ignored.
 */
export function renderPattern(url: URL): string {
  const segments = url.pathname.split('/').slice(1);
  const last = segments.length - 1;
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    if (out.length === MAX_SEGMENTS && i < last) {
      out.push('**');
      out.push(generaliseLast(segments[last] ?? ''));
      break;
    }
    const s = segments[i] ?? '';
    out.push(i === last ? generaliseLast(s) : idLike(s) ? '*' : s);
  }
  let pattern = `/${out.join('/')}`;
  const hash = /^#(!?)\//.exec(url.hash);
  if (hash) pattern += `#${hash[1]}/*`;
  return pattern;
}

/** Segments kept one by one; the rest are one `**`. */
const MAX_SEGMENTS = 8;

const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const HEX_RE = /^[0-9a-f]{8,}$/i;
const EXTENSION_RE = /\.([a-z0-9]{1,5})$/i;

function generaliseLast(segment: string): string {
  if (segment === '') return '';
  const ext = EXTENSION_RE.exec(segment);
  return ext && ext.index > 0 ? `*.${ext[1]?.toLowerCase()}` : '*';
}

/** A segment an application fills with an id: digits, a date, a slug with a number, a UUID, a hash. */
function idLike(segment: string): boolean {
  if (segment === '') return false;
  if (/^\d+$/.test(segment)) return true;
  if ((segment.match(/\d/g)?.length ?? 0) >= 4) return true;
  if (UUID_RE.test(segment)) return true;
  return HEX_RE.test(segment) && /\d/.test(segment);
}
