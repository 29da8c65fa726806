import type { ContentExtractor, ExtractedContent } from './content-extractor.js';
import { type BlockNode, type PageScan, scanHtml, type TextSegment } from './html-scan.js';

/** Options of {@link HtmlContentExtractor}. */
export interface HtmlContentExtractorOptions {
  /** Weighted length under which the article is "short" and the body text is used instead. @default 250 */
  minTextLength?: number | undefined;
  /** A block whose anchor text is more than this share of its text is a menu. @default 0.5 */
  menuLinkDensity?: number | undefined;
}

const CANDIDATE_TAGS = new Set(['#root', 'body', 'div', 'section', 'article', 'main', 'td', 'center', 'form']);
const PARAGRAPH_BONUS: Record<string, number> = { p: 1.5, pre: 1.3, blockquote: 1.3, dd: 1.1, li: 1, td: 1 };

/**
 * Article text by link density, no model (Greenfinger's ContentExtractor rules), in one SAX pass:
 * nav/header/footer/aside/form/script/style/noscript/template/svg are dropped; a substantial <article> or
 * <main> (role=main) wins; otherwise blocks are scored by length × (1 − link density) × paragraph bonus ×
 * class/id hint and the best container is kept; blocks with link density above 0.5 are menus; CJK characters
 * weigh 4; a short result falls back to the body text.
 */
export class HtmlContentExtractor implements ContentExtractor {
  readonly name = 'html';
  private readonly minText: number;
  private readonly menuDensity: number;

  constructor(options: HtmlContentExtractorOptions = {}) {
    this.minText = options.minTextLength ?? 250;
    this.menuDensity = options.menuLinkDensity ?? 0.5;
  }

  extract(html: string, pageUrl: string): ExtractedContent {
    const scan = scanHtml(html, pageUrl);
    return contentFromScan(scan, this.selectText(scan));
  }

  /** The article text of a scanned page, paragraphs separated by blank lines. */
  selectText(scan: PageScan): string {
    const { segments, nodes } = scan;
    const isMenu = (s: TextSegment) => s.linkLen > this.menuDensity * s.len;
    const pick = (node: BlockNode, into: number[]) => {
      for (let i = node.segStart; i < node.segEnd; i++) {
        const s = segments[i]!;
        if (s.soft && !node.soft) continue;
        if (isMenu(s)) continue;
        if (nodes[s.owner]!.hint < node.hint * 0.5) continue;
        into.push(i);
      }
      return into;
    };
    const lengthOf = (idx: number[]) => idx.reduce((n, i) => n + segments[i]!.len, 0);

    let chosen: number[] = [];
    const landmark = this.landmark(scan, isMenu);
    if (landmark) chosen = pick(landmark, []);
    if (chosen.length === 0 || lengthOf(chosen) < this.minText) {
      const scored = this.scoreContainers(scan, isMenu, pick);
      if (lengthOf(scored) > lengthOf(chosen)) chosen = scored;
    }
    let text = lengthOf(chosen);
    if (text < this.minText) {
      const body: number[] = [];
      for (let i = 0; i < segments.length; i++) if (!segments[i]!.soft) body.push(i);
      const bodyLen = lengthOf(body);
      if (bodyLen > text) {
        chosen = body;
        text = bodyLen;
      }
      if (text < this.minText) {
        const all: number[] = [];
        for (let i = 0; i < segments.length; i++) if (!isMenu(segments[i]!)) all.push(i);
        if (lengthOf(all) > 2 * text) chosen = all;
      }
    }
    let out = '';
    for (const i of chosen) out += (out ? '\n\n' : '') + segments[i]!.text;
    return out;
  }

  /** The <article> (one that dominates) or <main> holding enough non-menu text, if any. */
  private landmark(scan: PageScan, isMenu: (s: TextSegment) => boolean): BlockNode | null {
    const { segments, nodes } = scan;
    const contentLen = (n: BlockNode) => {
      let len = 0;
      for (let i = n.segStart; i < n.segEnd; i++) {
        const s = segments[i]!;
        if (!isMenu(s) && (!s.soft || n.soft)) len += s.len;
      }
      return len;
    };
    let bestArticle: BlockNode | null = null;
    let bestArticleLen = 0;
    const articleLens: [BlockNode, number][] = [];
    let bestMain: BlockNode | null = null;
    let bestMainLen = 0;
    for (const n of nodes) {
      if (n.kind === 0 || n.soft) continue;
      const len = contentLen(n);
      if (n.kind === 1) {
        articleLens.push([n, len]);
        if (len > bestArticleLen) {
          bestArticle = n;
          bestArticleLen = len;
        }
      } else if (len > bestMainLen) {
        bestMain = n;
        bestMainLen = len;
      }
    }
    if (bestArticle && bestArticleLen >= this.minText) {
      const a = bestArticle;
      const rival = articleLens.some(
        ([n, len]) => n !== a && len > 0.5 * bestArticleLen && !(n.segStart >= a.segStart && n.segEnd <= a.segEnd),
      );
      if (!rival) return a;
    }
    return bestMain && bestMainLen >= this.minText ? bestMain : null;
  }

  /** Readability-style: block scores flow to their containers with decay; the best container and strong siblings win. */
  private scoreContainers(
    scan: PageScan,
    isMenu: (s: TextSegment) => boolean,
    pick: (node: BlockNode, into: number[]) => number[],
  ): number[] {
    const { segments, nodes } = scan;
    const score = new Float64Array(nodes.length);
    const prefix = new Float64Array(segments.length + 1);
    const decay = [1, 1, 0.5, 0.25];
    for (let i = 0; i < segments.length; i++) {
      const s = segments[i]!;
      let v = 0;
      if (!s.soft && !isMenu(s)) {
        const owner = nodes[s.owner]!;
        v = s.len * (1 - s.linkLen / s.len) * (PARAGRAPH_BONUS[owner.tag] ?? 1) * owner.hint;
        for (let n = s.owner, d = 0; n >= 0 && d < decay.length; n = nodes[n]!.parent, d++) score[n]! += v * decay[d]!;
      }
      prefix[i + 1] = prefix[i]! + v;
    }
    let top = -1;
    for (let n = 0; n < nodes.length; n++) {
      const node = nodes[n]!;
      if (node.soft || !CANDIDATE_TAGS.has(node.tag)) continue;
      if (top < 0 || score[n]! > score[top]!) top = n;
    }
    if (top < 0 || score[top]! <= 0) return [];
    const topNode = nodes[top]!;
    const subtree = (n: BlockNode) => prefix[n.segEnd]! - prefix[n.segStart]!;
    const threshold = 0.25 * subtree(topNode);
    const picked: number[] = [];
    for (let n = 0; n < nodes.length; n++) {
      const node = nodes[n]!;
      if (n === top) pick(node, picked);
      else if (topNode.parent >= 0 && node.parent === topNode.parent && !node.soft && subtree(node) >= threshold) {
        pick(node, picked);
      }
    }
    return picked.sort((a, b) => a - b);
  }
}

/** Assemble the ExtractedContent of a scanned page around the chosen article text. */
export function contentFromScan(scan: PageScan, text: string, title?: string): ExtractedContent {
  return {
    title: title || scan.title || scan.h1,
    text,
    linkDensity: scan.totalLen > 0 ? Math.min(1, scan.totalLinkLen / scan.totalLen) : 0,
    links: scan.links,
    images: scan.images,
    lang: scan.lang,
    canonical: scan.canonical,
    markdownUrl: scan.markdown,
    robots: scan.robots,
    description: scan.description,
  };
}
