import { foundAs, writtenForm } from '../../url/found-as.js';
import { normalizeUrl } from '../../url/normalize.js';
import type { ExtractedLink } from '../content-extractor.js';
import { F_ANCHOR } from './flags.js';
import { clean } from './text.js';

interface RawLink {
  href: string;
  text: string;
  nofollow: boolean;
}

const NOFOLLOW = /\bnofollow\b/i;

function isNofollow(rel: string | undefined): boolean {
  return NOFOLLOW.test(rel ?? '');
}

/**
 * Links in document order: <a href> with its anchor text (the outermost of nested anchors), <area href> with its
 * alt, and whatever the head collector adds (hreflang alternates). Resolved, fragment-only dropped, deduplicated.
 */
export class LinkCollector {
  private readonly raw: RawLink[] = [];
  private anchor: RawLink | null = null;

  /** Whether text now is anchor text. */
  get inAnchor(): boolean {
    return this.anchor !== null;
  }

  readonly add = (href: string, text: string, nofollow: boolean): void => {
    this.raw.push({ href, text, nofollow });
  };

  open(name: string, attribs: Record<string, string>): number {
    if (name === 'a') {
      if (attribs.href !== undefined && this.anchor === null) {
        this.anchor = { href: attribs.href, text: '', nofollow: isNofollow(attribs.rel) };
        return F_ANCHOR;
      }
    } else if (name === 'area' && attribs.href !== undefined) {
      this.add(attribs.href, clean(attribs.alt ?? ''), isNofollow(attribs.rel));
    }
    return 0;
  }

  /** A piece of visible text, as the segment collector normalised it. */
  text(piece: string): void {
    if (this.anchor !== null && this.anchor.text.length < 400) this.anchor.text += piece;
  }

  close(flags: number): void {
    if (!(flags & F_ANCHOR) || !this.anchor) return;
    let text = this.anchor.text.trim();
    if (/\s\s|[\n\t]/.test(text)) text = clean(text);
    this.add(this.anchor.href, text, this.anchor.nofollow);
    this.anchor = null;
  }

  /**
   * The links resolved against `base`; a repeated URL keeps its first text and is nofollow only if always, and the
   * form its first link was written in when that is not its normal form (`foundAs`).
   */
  finish(base: string): ExtractedLink[] {
    const links: ExtractedLink[] = [];
    const linkIndex = new Map<string, number>();
    for (const l of this.raw) {
      const href = l.href.trim();
      if (href === '' || href.startsWith('#')) continue;
      const url = normalizeUrl(href, base);
      if (!url) continue;
      const at = linkIndex.get(url);
      if (at === undefined) {
        linkIndex.set(url, links.length);
        const link: ExtractedLink = { url, text: l.text, nofollow: l.nofollow };
        // The form of the url's first link, when normalisation changed it.
        const written = foundAs(writtenForm(href, base), url);
        if (written !== undefined) link.foundAs = written;
        links.push(link);
      } else {
        mergeLink(links[at]!, l);
      }
    }
    return links;
  }
}

function mergeLink(prev: ExtractedLink, l: RawLink): void {
  if (!l.nofollow) prev.nofollow = false;
  if (!prev.text && l.text) prev.text = l.text;
}
