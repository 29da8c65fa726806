/**
 * The canonical url an HTTP `Link` header declares (`Link: <https://example.com/a>; rel="canonical"`, RFC 8288),
 * resolved against the page url; undefined when it declares none. Several links in one header are separated by
 * commas outside the angle brackets.
 */
export function canonicalFromLinkHeader(value: string | undefined, pageUrl: string): string | undefined {
  if (!value) return undefined;
  const re = /<([^>]*)>\s*((?:;\s*[^;,]+)*)/g;
  for (let m = re.exec(value), n = 0; m !== null && n < 100; m = re.exec(value), n++) {
    const params = m[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const rels = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (!rels.includes('canonical')) continue;
    try {
      return new URL(m[1] ?? '', pageUrl).href;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
