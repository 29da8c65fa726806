import { normalizeUrl } from '../../url/normalize.js';
import type { ImageRef } from '../content-extractor.js';
import { F_FIGURE, F_PICTURE } from './flags.js';
import type { OgImage } from './head-collector.js';
import type { SegmentCollector } from './segment-collector.js';
import { clean, dim, trimText } from './text.js';

interface SrcsetCandidate {
  url: string;
  w: number;
  x: number;
}

interface PendingImage {
  url: string;
  alt: string;
  width: number | undefined;
  height: number | undefined;
  source: string;
  block: number;
  figure: number;
  /** The `title` attribute, when it says more than the alt text. */
  title: string;
  /** The block of the last heading (h1–h6) opened before the image, or -1. */
  heading: number;
}

const SRCSET_SEPARATOR = new Set([',', ' ', '\n', '\t']);

function isLarger(c: SrcsetCandidate, best: SrcsetCandidate | null): boolean {
  return !best || c.w > best.w || (c.w === best.w && c.x > best.x);
}

function descriptorSize(descriptor: string): { w: number; x: number } {
  const m = /^(\d+(?:\.\d+)?)([wx])$/i.exec(descriptor);
  if (!m) return { w: 0, x: 1 };
  return m[2]!.toLowerCase() === 'w' ? { w: Number(m[1]), x: 1 } : { w: 0, x: Number(m[1]) };
}

/** The largest candidate of a srcset: highest `w`, else highest `x` (no descriptor = 1x). */
export function largestSrcsetCandidate(srcset: string): SrcsetCandidate | null {
  let best: SrcsetCandidate | null = null;
  let i = 0;
  const n = srcset.length;
  while (i < n) {
    while (i < n && SRCSET_SEPARATOR.has(srcset[i]!)) i++;
    if (i >= n) break;
    let j = i;
    while (j < n && !/\s/.test(srcset[j]!)) j++;
    let url = srcset.slice(i, j);
    let descriptor = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      const k = srcset.indexOf(',', j);
      descriptor = srcset.slice(j, k < 0 ? n : k).trim();
      j = k < 0 ? n : k;
    }
    i = j;
    if (!url || url.startsWith('data:')) continue;
    const c = { url, ...descriptorSize(descriptor) };
    if (isLarger(c, best)) best = c;
  }
  return best;
}

/**
 * Images: <img> (src, lazy-load attributes, srcset), <picture> with its <source> sets, the figure and block each
 * sits in (for the caption or nearby text), and finally the head's og:image. Resolved and deduplicated.
 */
export class PictureCollector {
  private readonly pending: PendingImage[] = [];
  private readonly pictureSources: string[] = [];
  private pictureDepth = 0;
  private readonly figureStack: number[] = [];
  private readonly figcaptionOf = new Map<number, number>();
  private lastHeading = -1;

  /** An element's open tag outside dropped content; `block` is the innermost block, this element if one. */
  open(name: string, a: Record<string, string>, block: number): number {
    switch (name) {
      case 'figure':
        this.figureStack.push(block);
        return F_FIGURE;
      case 'figcaption':
        if (this.figureStack.length > 0) this.figcaptionOf.set(this.figure, block);
        return 0;
      case 'picture':
        this.pictureSources.length = 0;
        this.pictureDepth++;
        return F_PICTURE;
      case 'source':
        if (this.pictureDepth > 0) this.source(a);
        return 0;
      case 'img':
        this.image(a, block);
        return 0;
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6':
        this.lastHeading = block;
        return 0;
    }
    return 0;
  }

  close(flags: number): void {
    if (flags & F_FIGURE) this.figureStack.pop();
    if (flags & F_PICTURE) {
      this.pictureSources.length = 0;
      this.pictureDepth--;
    }
  }

  /** The images resolved against `base`, each with its surrounding text, then og:image described by `ogText`. */
  finish(base: string, text: SegmentCollector, og: OgImage | null, ogText: string): ImageRef[] {
    const images: ImageRef[] = [];
    const seen = new Set<string>();
    const push = (img: ImageRef) => {
      if (seen.has(img.url)) return;
      seen.add(img.url);
      images.push(img);
    };
    for (const p of this.pending) {
      const url = normalizeUrl(p.url, base);
      if (!url) continue;
      const surroundingText = this.context(p, text);
      push({ url, alt: p.alt, surroundingText, width: p.width, height: p.height, source: p.source });
    }
    const ogUrl = og ? normalizeUrl(og.url, base) : null;
    if (og && ogUrl) {
      const surroundingText = trimText(ogText);
      push({ url: ogUrl, alt: og.alt, surroundingText, width: og.width, height: og.height, source: 'og:image' });
    }
    return images;
  }

  private get figure(): number {
    return this.figureStack[this.figureStack.length - 1]!;
  }

  private source(a: Record<string, string>): void {
    const set = a.srcset ?? a['data-srcset'];
    if (set) this.pictureSources.push(set);
  }

  private image(a: Record<string, string>, block: number): void {
    let src = a.src ?? '';
    if (!src || src.startsWith('data:')) src = a['data-src'] ?? a['data-lazy-src'] ?? a['data-original'] ?? '';
    const set = a.srcset ?? a['data-srcset'];
    const inPicture = this.pictureDepth > 0;
    const best = inPicture || set ? this.largestCandidate(set ?? '', inPicture) : null;
    const url = best ? best.url : src;
    if (!url || url.startsWith('data:')) return;
    const alt = clean(a.alt ?? '');
    const title = clean(a.title ?? '');
    this.pending.push({
      url,
      alt,
      title: title.toLowerCase() === alt.toLowerCase() ? '' : title,
      heading: this.lastHeading,
      width: dim(a.width),
      height: dim(a.height),
      source: inPicture ? 'picture' : best ? 'srcset' : 'img',
      block,
      figure: this.figureStack.length > 0 ? this.figure : -1,
    });
  }

  /** The largest candidate over the enclosing picture's sources (when in one) and the image's own srcset. */
  private largestCandidate(set: string, inPicture: boolean): SrcsetCandidate | null {
    let best: SrcsetCandidate | null = null;
    if (inPicture) {
      for (const s of this.pictureSources) {
        const c = largestSrcsetCandidate(s);
        if (c && isLarger(c, best)) best = c;
      }
    }
    const c = largestSrcsetCandidate(set);
    return c && isLarger(c, best) ? c : best;
  }

  /**
   * What a picture's record is found by besides its alt text: the nearest heading before it (unless the caption or
   * window already holds it), the caption or window of text around it (about 300 characters), and its `title`
   * attribute (when it says something the alt and the text do not), joined by ` — `.
   */
  private context(p: PendingImage, text: SegmentCollector): string {
    const around = trimText(clean(this.around(p, text)));
    const heading = p.heading >= 0 ? trimText(clean(text.textOf(p.heading)), 120) : '';
    const title = trimText(p.title, 120);
    const lower = around.toLowerCase();
    const parts = [
      heading && !lower.includes(heading.toLowerCase()) ? heading : '',
      around,
      title && !lower.includes(title.toLowerCase()) ? title : '',
    ];
    return parts.filter(Boolean).join(' — ');
  }

  /** The figure's caption, else the text of the image's block or up to two of its ancestors. */
  private around(p: PendingImage, text: SegmentCollector): string {
    const cap = p.figure >= 0 ? this.figcaptionOf.get(p.figure) : undefined;
    let around = cap !== undefined ? text.textOf(cap) : '';
    for (let b = p.block, hops = 0; !around && b > 0 && hops < 3; b = text.nodes[b]!.parent, hops++) {
      around = text.textOf(b);
    }
    return around;
  }
}
