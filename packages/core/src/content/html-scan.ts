import { Parser } from 'htmlparser2';
import { normalizeUrl } from '../url/normalize.js';
import type { ExtractedLink, ImageRef } from './content-extractor.js';

/** A run of text between two block boundaries. */
export interface TextSegment {
  text: string;
  /** Weighted length (CJK characters count 4). */
  len: number;
  /** Weighted length of the anchor text in it. */
  linkLen: number;
  /** Index of the innermost block element holding it. */
  owner: number;
  /** Inside nav/header/footer/aside/form or a navigation role. */
  soft: boolean;
}

/** A block element: the light structure the extractor scores. */
export interface BlockNode {
  tag: string;
  parent: number;
  /** Product of the class/id hints of this element and its ancestors. */
  hint: number;
  soft: boolean;
  /** 1 = <article>, 2 = <main> or role=main. */
  kind: 0 | 1 | 2;
  /** Its text segments are segments[segStart .. segEnd). */
  segStart: number;
  segEnd: number;
}

/** Everything one SAX pass reads from a page. */
export interface PageScan {
  title: string;
  h1: string;
  lang: string;
  canonical: string | null;
  description: string;
  robots: { noindex: boolean; nofollow: boolean };
  links: ExtractedLink[];
  images: ImageRef[];
  segments: TextSegment[];
  nodes: BlockNode[];
  /** Weighted text and anchor-text lengths over the whole body (navigation included). */
  totalLen: number;
  totalLinkLen: number;
}

// biome-ignore format: a word list
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'dialog', 'div', 'dl',
  'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup',
  'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'td', 'th', 'tr', 'ul', 'legend', 'menu',
]);
// biome-ignore format: a word list
const HARD_DROP = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'select', 'textarea',
  'button',
]);
const SOFT_DROP = new Set(['nav', 'header', 'footer', 'aside', 'form', 'menu', 'dialog']);
const SOFT_ROLES = new Set([
  'navigation',
  'menu',
  'menubar',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'dialog',
]);
const POSITIVE_HINT = /article|content|entry|main|post|story|blog|text/i;
const NEGATIVE_HINT =
  /nav|menu|sidebar|footer|comment|share|breadcrumb|related|widget|banner|sponsor|promo|social|masthead|cookie|popup|subscribe|pagination|advert|\bads?\b/i;

const F_HARD = 1;
const F_SOFT = 2;
const F_PRE = 4;
const F_ANCHOR = 8;
const F_BLOCK = 16;
const F_TITLE = 32;
const F_H1 = 64;
const F_PICTURE = 128;
const F_FIGURE = 256;

const WS = /\s+/g;
const HIDDEN_STYLE = /display\s*:\s*none/i;

/** Weighted length: CJK characters (kana, ideographs, hangul) count 4, as one carries about a word. */
export function weightedLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (
      c >= 0x3040 &&
      (c <= 0x30ff ||
        (c >= 0x3400 && c <= 0x4dbf) ||
        (c >= 0x4e00 && c <= 0x9fff) ||
        (c >= 0xac00 && c <= 0xd7af) ||
        (c >= 0xf900 && c <= 0xfaff))
    ) {
      n += 3;
    }
  }
  return n;
}

/** The largest candidate of a srcset: highest `w`, else highest `x` (no descriptor = 1x). */
export function largestSrcsetCandidate(srcset: string): { url: string; w: number; x: number } | null {
  let best: { url: string; w: number; x: number } | null = null;
  let i = 0;
  const n = srcset.length;
  while (i < n) {
    while (i < n && (srcset[i] === ',' || srcset[i] === ' ' || srcset[i] === '\n' || srcset[i] === '\t')) i++;
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
    let w = 0;
    let x = 1;
    const m = /^(\d+(?:\.\d+)?)([wx])$/i.exec(descriptor);
    if (m) {
      if (m[2]!.toLowerCase() === 'w') w = Number(m[1]);
      else x = Number(m[1]);
    }
    if (!best || w > best.w || (w === best.w && x > best.x)) best = { url, w, x };
  }
  return best;
}

function dim(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

function clean(s: string): string {
  return s.replace(WS, ' ').trim();
}

/** Trim to about `max` characters at a word boundary. */
export function trimText(s: string, max = 300): string {
  if (s.length <= max) return s;
  const cut = s.lastIndexOf(' ', max);
  return `${s.slice(0, cut > max * 0.6 ? cut : max).trimEnd()}…`;
}

interface OgImage {
  url: string;
  alt: string;
  width?: number | undefined;
  height?: number | undefined;
}

interface PendingImage {
  url: string;
  alt: string;
  width: number | undefined;
  height: number | undefined;
  source: string;
  block: number;
  figure: number;
}

/**
 * One SAX pass over a page (htmlparser2, entities decoded): text segments split at block boundaries with their
 * anchor-text share, block elements with class/id hints, links, images and head metadata. No DOM is built.
 */
export function scanHtml(html: string, pageUrl: string): PageScan {
  const segments: TextSegment[] = [];
  const nodes: BlockNode[] = [{ tag: '#root', parent: -1, hint: 1, soft: false, kind: 0, segStart: 0, segEnd: 0 }];
  const frames: number[] = [];
  const blockStack: number[] = [0];
  const figureStack: number[] = [];
  const figcaptionOf = new Map<number, number>();
  const rawLinks: { href: string; text: string; nofollow: boolean }[] = [];
  const pending: PendingImage[] = [];
  const pictureSources: string[] = [];
  let hard = 0;
  let soft = 0;
  let pre = 0;
  let pictureDepth = 0;
  let parts: string[] = [];
  let partsLinkLen = 0;
  let anchor: { href: string; nofollow: boolean; text: string } | null = null;
  let title = '';
  let titleDone = false;
  let inTitle = false;
  let h1 = '';
  let h1State = 0; // 0 none yet, 1 capturing, 2 done
  let lang = '';
  let langMeta = '';
  let baseHref = '';
  let canonical = '';
  let description = '';
  let ogDescription = '';
  let ogTitle = '';
  let ogImage = null as OgImage | null;
  let noindex = false;
  let nofollow = false;
  let totalLen = 0;
  let totalLinkLen = 0;

  const flush = () => {
    if (parts.length === 0) return;
    let text = parts.join('');
    if (pre === 0)
      text = text
        .replace(/ *\n */g, '\n')
        .replace(/ {2,}/g, ' ')
        .trim();
    else text = text.replace(/^\n+|\s+$/g, '');
    parts = [];
    const linkLen = partsLinkLen;
    partsLinkLen = 0;
    if (text === '') return;
    const len = weightedLength(text);
    const l = Math.min(linkLen, len);
    segments.push({ text, len, linkLen: l, owner: blockStack[blockStack.length - 1]!, soft: soft > 0 });
    totalLen += len;
    totalLinkLen += l;
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        let f = 0;
        if (
          HARD_DROP.has(name) ||
          attribs.hidden !== undefined ||
          (attribs.style && HIDDEN_STYLE.test(attribs.style))
        ) {
          f |= F_HARD;
          hard++;
        }
        if (name === 'meta' || name === 'link' || name === 'base' || name === 'title' || name === 'html') {
          headTag(name, attribs);
        }
        if (name === 'title' && !titleDone && hard === 0) {
          inTitle = true;
          f |= F_TITLE;
        }
        if (hard > 0) {
          frames.push(f);
          return;
        }
        const role = attribs.role;
        const isBlock = BLOCK_TAGS.has(name);
        const softHere = SOFT_DROP.has(name) || (role !== undefined && SOFT_ROLES.has(role));
        if (isBlock || softHere) {
          flush();
          f |= F_BLOCK;
          if (softHere) {
            f |= F_SOFT;
            soft++;
          }
          const parent = blockStack[blockStack.length - 1]!;
          let own = 1;
          const hintText = attribs.class ? (attribs.id ? `${attribs.class} ${attribs.id}` : attribs.class) : attribs.id;
          if (hintText) {
            if (POSITIVE_HINT.test(hintText)) own *= 1.5;
            if (NEGATIVE_HINT.test(hintText)) own *= 0.25;
          }
          const idx = nodes.length;
          nodes.push({
            tag: name,
            parent,
            hint: nodes[parent]!.hint * own,
            soft: soft > 0,
            kind: name === 'article' ? 1 : name === 'main' || role === 'main' ? 2 : 0,
            segStart: segments.length,
            segEnd: segments.length,
          });
          blockStack.push(idx);
          if (name === 'figure') {
            figureStack.push(idx);
            f |= F_FIGURE;
          } else if (name === 'figcaption' && figureStack.length > 0) {
            figcaptionOf.set(figureStack[figureStack.length - 1]!, idx);
          } else if (name === 'h1' && h1State === 0) {
            h1State = 1;
            f |= F_H1;
          }
        }
        switch (name) {
          case 'pre':
            pre++;
            f |= F_PRE;
            break;
          case 'br':
            parts.push('\n');
            break;
          case 'a':
            if (attribs.href !== undefined && anchor === null) {
              anchor = { href: attribs.href, nofollow: /\bnofollow\b/i.test(attribs.rel ?? ''), text: '' };
              f |= F_ANCHOR;
            }
            break;
          case 'area':
            if (attribs.href !== undefined) {
              rawLinks.push({
                href: attribs.href,
                text: clean(attribs.alt ?? ''),
                nofollow: /\bnofollow\b/i.test(attribs.rel ?? ''),
              });
            }
            break;
          case 'picture':
            pictureSources.length = 0;
            pictureDepth++;
            f |= F_PICTURE;
            break;
          case 'source':
            if (pictureDepth > 0) {
              const set = attribs.srcset ?? attribs['data-srcset'];
              if (set) pictureSources.push(set);
            }
            break;
          case 'img':
            image(attribs);
            break;
        }
        frames.push(f);
      },
      ontext(data) {
        if (inTitle) {
          title += data;
          return;
        }
        if (hard > 0) return;
        let piece: string;
        if (pre > 0) piece = data;
        else if (data.trim() === '') {
          if (parts.length === 0) return;
          piece = ' ';
        } else piece = data.replace(WS, ' ');
        parts.push(piece);
        if (anchor !== null) {
          partsLinkLen += weightedLength(piece.trim());
          if (anchor.text.length < 400) anchor.text += piece;
        }
        if (h1State === 1) h1 += piece;
      },
      onclosetag() {
        const f = frames.pop() ?? 0;
        if (f & F_TITLE) {
          inTitle = false;
          titleDone = true;
        }
        if (f & F_HARD) {
          hard--;
          return;
        }
        if (f & F_ANCHOR && anchor) {
          let text = anchor.text.trim();
          if (/\s\s|[\n\t]/.test(text)) text = clean(text);
          rawLinks.push({ href: anchor.href, text, nofollow: anchor.nofollow });
          anchor = null;
        }
        if (f & F_PRE) {
          flush();
          pre--;
        }
        if (f & F_BLOCK) {
          flush();
          const idx = blockStack.pop()!;
          nodes[idx]!.segEnd = segments.length;
          if (f & F_SOFT) soft--;
          if (f & F_FIGURE) figureStack.pop();
          if (f & F_H1) h1State = 2;
        }
        if (f & F_PICTURE) {
          pictureSources.length = 0;
          pictureDepth--;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );

  function headTag(name: string, a: Record<string, string>): void {
    if (name === 'html') {
      if (!lang && a.lang) lang = a.lang.trim();
      else if (!lang && a['xml:lang']) lang = a['xml:lang'].trim();
      return;
    }
    if (name === 'base') {
      if (!baseHref && a.href) baseHref = a.href;
      return;
    }
    if (name === 'link') {
      const rel = (a.rel ?? '').toLowerCase();
      if (!a.href) return;
      if (/\bcanonical\b/.test(rel)) {
        if (!canonical) canonical = a.href;
      } else if (/\balternate\b/.test(rel) && a.hreflang) {
        rawLinks.push({ href: a.href, text: a.hreflang, nofollow: false });
      }
      return;
    }
    if (name === 'meta') {
      const key = (a.name ?? a.property ?? '').toLowerCase();
      const content = a.content ?? '';
      if (!key) {
        if (a['http-equiv']?.toLowerCase() === 'content-language') langMeta = content.split(',')[0]!.trim();
        return;
      }
      switch (key) {
        case 'description':
          if (!description) description = clean(content);
          break;
        case 'og:description':
          if (!ogDescription) ogDescription = clean(content);
          break;
        case 'og:title':
          if (!ogTitle) ogTitle = clean(content);
          break;
        case 'og:image':
        case 'og:image:url':
        case 'og:image:secure_url':
          if (!ogImage && content) ogImage = { url: content.trim(), alt: '' };
          break;
        case 'og:image:alt':
          if (ogImage && !ogImage.alt) ogImage.alt = clean(content);
          break;
        case 'og:image:width':
          if (ogImage) ogImage.width = dim(content);
          break;
        case 'og:image:height':
          if (ogImage) ogImage.height = dim(content);
          break;
        case 'robots': {
          const c = content.toLowerCase();
          if (/\b(noindex|none)\b/.test(c)) noindex = true;
          if (/\b(nofollow|none)\b/.test(c)) nofollow = true;
          break;
        }
      }
    }
  }

  function image(a: Record<string, string>): void {
    let src = a.src ?? '';
    if (!src || src.startsWith('data:')) src = a['data-src'] ?? a['data-lazy-src'] ?? a['data-original'] ?? '';
    const set = a.srcset ?? a['data-srcset'];
    let source = 'img';
    let url = src;
    const inPicture = pictureDepth > 0;
    if (inPicture || set) {
      let best: { url: string; w: number; x: number } | null = null;
      for (const s of inPicture ? [...pictureSources, set ?? ''] : [set ?? '']) {
        const c = largestSrcsetCandidate(s);
        if (c && (!best || c.w > best.w || (c.w === best.w && c.x > best.x))) best = c;
      }
      if (best) {
        url = best.url;
        source = inPicture ? 'picture' : 'srcset';
      } else if (inPicture) {
        source = 'picture';
      }
    }
    if (!url || url.startsWith('data:')) return;
    pending.push({
      url,
      alt: clean(a.alt ?? ''),
      width: dim(a.width),
      height: dim(a.height),
      source,
      block: blockStack[blockStack.length - 1]!,
      figure: figureStack.length > 0 ? figureStack[figureStack.length - 1]! : -1,
    });
  }

  parser.end(html);
  flush();
  while (blockStack.length > 1) nodes[blockStack.pop()!]!.segEnd = segments.length;
  nodes[0]!.segEnd = segments.length;

  let base: string = pageUrl;
  if (baseHref) {
    try {
      base = new URL(baseHref, pageUrl).href;
    } catch {
      base = pageUrl;
    }
  }

  const links: ExtractedLink[] = [];
  const linkIndex = new Map<string, number>();
  for (const l of rawLinks) {
    const href = l.href.trim();
    if (href === '' || href.startsWith('#')) continue;
    const url = normalizeUrl(href, base);
    if (!url) continue;
    const at = linkIndex.get(url);
    if (at === undefined) {
      linkIndex.set(url, links.length);
      links.push({ url, text: l.text, nofollow: l.nofollow });
    } else {
      const prev = links[at]!;
      if (!l.nofollow) prev.nofollow = false;
      if (!prev.text && l.text) prev.text = l.text;
    }
  }

  const segText = (n: BlockNode) => {
    let s = '';
    for (let i = n.segStart; i < n.segEnd && s.length < 400; i++) s += (s ? ' ' : '') + segments[i]!.text;
    return s;
  };
  const images: ImageRef[] = [];
  const seenImages = new Set<string>();
  const pushImage = (img: ImageRef) => {
    if (seenImages.has(img.url)) return;
    seenImages.add(img.url);
    images.push(img);
  };
  for (const p of pending) {
    const url = normalizeUrl(p.url, base);
    if (!url) continue;
    let around = '';
    const cap = p.figure >= 0 ? figcaptionOf.get(p.figure) : undefined;
    if (cap !== undefined) around = segText(nodes[cap]!);
    for (let b = p.block, hops = 0; !around && b > 0 && hops < 3; b = nodes[b]!.parent, hops++)
      around = segText(nodes[b]!);
    pushImage({
      url,
      alt: p.alt,
      surroundingText: trimText(clean(around)),
      width: p.width,
      height: p.height,
      source: p.source,
    });
  }
  if (ogImage) {
    const url = normalizeUrl(ogImage.url, base);
    if (url) {
      pushImage({
        url,
        alt: ogImage.alt,
        surroundingText: trimText(description || ogDescription),
        width: ogImage.width,
        height: ogImage.height,
        source: 'og:image',
      });
    }
  }

  let canonicalUrl: string | null = null;
  if (canonical) canonicalUrl = normalizeUrl(canonical, base) ?? null;

  return {
    title: clean(title) || ogTitle,
    h1: clean(h1),
    lang: lang || langMeta,
    canonical: canonicalUrl,
    description: description || ogDescription,
    robots: { noindex, nofollow },
    links,
    images,
    segments,
    nodes,
    totalLen,
    totalLinkLen,
  };
}
