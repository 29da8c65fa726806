import { productToken } from '../../acceptors/robots.js';

/** What a page asks of robots: `noindex` (do not keep it), `nofollow` (do not follow its links). */
export interface RobotsDirectives {
  noindex: boolean;
  nofollow: boolean;
}

/**
 * The directives of `X-Robots-Tag` headers (already joined by `, ` when sent more than once). A directive group may
 * name a user agent (`googlebot: noindex`): it applies only when that is our product token; groups without one apply
 * to every robot. `none` means both. Unknown directives (`noarchive`, `unavailable_after: …`) are ignored.
 */
export function xRobotsTag(value: string | undefined, userAgent: string): RobotsDirectives {
  const out: RobotsDirectives = { noindex: false, nofollow: false };
  if (!value) return out;
  const us = productToken(userAgent);
  let agent: string | undefined;
  for (const raw of value.split(',')) {
    let part = raw.trim().toLowerCase();
    const named = /^([a-z0-9_-]+)\s*:\s*(.*)$/.exec(part);
    if (named && !KNOWN.has(named[1] ?? '')) {
      agent = named[1];
      part = named[2] ?? '';
    }
    if (agent !== undefined && agent !== us) continue;
    if (part === 'noindex' || part === 'none') out.noindex = true;
    if (part === 'nofollow' || part === 'none') out.nofollow = true;
  }
  return out;
}

/** Directives that take a value after a colon: not user-agent names. */
const KNOWN = new Set(['unavailable_after', 'max-snippet', 'max-image-preview', 'max-video-preview']);

/** Both sources together: the header's and the page's `<meta name="robots">`. */
export function combineDirectives(a: RobotsDirectives, b: RobotsDirectives): RobotsDirectives {
  return { noindex: a.noindex || b.noindex, nofollow: a.nofollow || b.nofollow };
}
