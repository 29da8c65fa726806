import { Parser } from 'htmlparser2';
import { normalizeUrl } from '../url/normalize.js';
import type { ExtractedLink, ImageRef } from './content-extractor.js';
import { F_HARD } from './scan/flags.js';
import { HeadCollector } from './scan/head-collector.js';
import { LinkCollector } from './scan/link-collector.js';
import { PictureCollector } from './scan/picture-collector.js';
import { type BlockNode, SegmentCollector, type TextSegment } from './scan/segment-collector.js';

export { largestSrcsetCandidate } from './scan/picture-collector.js';
export type { BlockNode, TextSegment } from './scan/segment-collector.js';
export { trimText, weightedLength } from './scan/text.js';

/** Everything one SAX pass reads from a page. */
export interface PageScan {
  title: string;
  h1: string;
  lang: string;
  canonical: string | null;
  /** The page's own Markdown (`<link rel="alternate" type="text/markdown">`), absolute; null when it names none. */
  markdown: string | null;
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
const HARD_DROP = new Set([
  'script', 'style', 'noscript', 'template', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'select', 'textarea',
  'button',
]);
const HIDDEN_STYLE = /display\s*:\s*none/i;

/** An element whose content no collector but the head one sees: scripts, embeds, form controls, hidden. */
function isDropped(name: string, attribs: Record<string, string>): boolean {
  return HARD_DROP.has(name) || attribs.hidden !== undefined || (!!attribs.style && HIDDEN_STYLE.test(attribs.style));
}

function baseUrl(baseHref: string, pageUrl: string): string {
  if (!baseHref) return pageUrl;
  try {
    return new URL(baseHref, pageUrl).href;
  } catch {
    return pageUrl;
  }
}

/** The parser's events, fed to the four collectors; the frame stack carries each element's flags to its close. */
class ScanPass {
  readonly links = new LinkCollector();
  readonly head = new HeadCollector(this.links.add);
  readonly text = new SegmentCollector();
  readonly pictures = new PictureCollector();
  private readonly frames: number[] = [];
  /** Depth of dropped elements: inside one, only the head collector sees tags. */
  private hard = 0;

  onopentag(name: string, attribs: Record<string, string>): void {
    let f = 0;
    if (isDropped(name, attribs)) {
      f = F_HARD;
      this.hard++;
    }
    f |= this.head.open(name, attribs, this.hard === 0);
    if (this.hard === 0) {
      f |= this.text.open(name, attribs);
      f |= this.pictures.open(name, attribs, this.text.block);
      f |= this.links.open(name, attribs);
    }
    this.frames.push(f);
  }

  ontext(data: string): void {
    if (this.head.inTitle) {
      this.head.titleText(data);
      return;
    }
    if (this.hard > 0) return;
    const piece = this.text.text(data, this.links.inAnchor);
    if (piece === undefined) return;
    this.links.text(piece);
    this.head.text(piece);
  }

  onclosetag(): void {
    const f = this.frames.pop() ?? 0;
    this.head.close(f);
    if (f & F_HARD) {
      this.hard--;
      return;
    }
    this.links.close(f);
    this.text.close(f);
    this.pictures.close(f);
  }
}

/**
 * One SAX pass over a page (htmlparser2, entities decoded): text segments split at block boundaries with their
 * anchor-text share, block elements with class/id hints, links, images and head metadata. No DOM is built.
 */
export function scanHtml(html: string, pageUrl: string): PageScan {
  const pass = new ScanPass();
  new Parser(pass, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true }).end(html);
  const { head, text, links, pictures } = pass;
  text.finish();
  const base = baseUrl(head.baseHref, pageUrl);
  return {
    title: head.title,
    h1: head.h1,
    lang: head.lang,
    canonical: head.canonical ? (normalizeUrl(head.canonical, base) ?? null) : null,
    markdown: head.markdown ? (normalizeUrl(head.markdown, base) ?? null) : null,
    description: head.description,
    robots: { noindex: head.noindex, nofollow: head.nofollow },
    links: links.finish(base),
    images: pictures.finish(base, text, head.ogImage, head.description),
    segments: text.segments,
    nodes: text.nodes,
    totalLen: text.totalLen,
    totalLinkLen: text.totalLinkLen,
  };
}
