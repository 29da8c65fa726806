import { F_BLOCK, F_PRE, F_SOFT } from './flags.js';
import { WS, weightedLength } from './text.js';

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

// biome-ignore format: a word list
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'dialog', 'div', 'dl',
  'dt', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup',
  'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'td', 'th', 'tr', 'ul', 'legend', 'menu',
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

/** The class/id hint of one element: ×1.5 for a content-like name, ×0.25 for a navigation-like one. */
function ownHint(attribs: Record<string, string>): number {
  let own = 1;
  const hintText = attribs.class ? (attribs.id ? `${attribs.class} ${attribs.id}` : attribs.class) : attribs.id;
  if (hintText) {
    if (POSITIVE_HINT.test(hintText)) own *= 1.5;
    if (NEGATIVE_HINT.test(hintText)) own *= 0.25;
  }
  return own;
}

function kindOf(name: string, role: string | undefined): 0 | 1 | 2 {
  return name === 'article' ? 1 : name === 'main' || role === 'main' ? 2 : 0;
}

/**
 * Article text material: text segments split at block boundaries with their anchor-text share, and the block
 * elements (with class/id hints and soft = navigation-like) that own them. Sees only content outside dropped
 * elements.
 */
export class SegmentCollector {
  readonly segments: TextSegment[] = [];
  readonly nodes: BlockNode[] = [{ tag: '#root', parent: -1, hint: 1, soft: false, kind: 0, segStart: 0, segEnd: 0 }];
  /** Weighted text and anchor-text lengths over the whole body (navigation included). */
  totalLen = 0;
  totalLinkLen = 0;
  private readonly blockStack: number[] = [0];
  private soft = 0;
  private pre = 0;
  private parts: string[] = [];
  private partsLinkLen = 0;

  /** Index of the innermost open block element. */
  get block(): number {
    return this.blockStack[this.blockStack.length - 1]!;
  }

  open(name: string, attribs: Record<string, string>): number {
    const role = attribs.role;
    const softHere = SOFT_DROP.has(name) || (role !== undefined && SOFT_ROLES.has(role));
    let f = BLOCK_TAGS.has(name) || softHere ? this.openBlock(name, attribs, softHere) : 0;
    if (name === 'pre') {
      this.pre++;
      f |= F_PRE;
    } else if (name === 'br') {
      this.parts.push('\n');
    }
    return f;
  }

  /**
   * A text event: its piece (whitespace collapsed outside <pre>) joins the current segment and is returned, or
   * undefined for whitespace that starts a segment.
   */
  text(data: string, inAnchor: boolean): string | undefined {
    let piece: string;
    if (this.pre > 0) piece = data;
    else if (data.trim() === '') {
      if (this.parts.length === 0) return undefined;
      piece = ' ';
    } else piece = data.replace(WS, ' ');
    this.parts.push(piece);
    if (inAnchor) this.partsLinkLen += weightedLength(piece.trim());
    return piece;
  }

  close(flags: number): void {
    if (flags & F_PRE) {
      this.flush();
      this.pre--;
    }
    if (flags & F_BLOCK) {
      this.flush();
      this.nodes[this.blockStack.pop()!]!.segEnd = this.segments.length;
      if (flags & F_SOFT) this.soft--;
    }
  }

  /** End of input: the last segment, and every block still open closes. */
  finish(): void {
    this.flush();
    while (this.blockStack.length > 1) this.nodes[this.blockStack.pop()!]!.segEnd = this.segments.length;
    this.nodes[0]!.segEnd = this.segments.length;
  }

  /** About the first 400 characters of a block's text. */
  textOf(node: number): string {
    const n = this.nodes[node]!;
    let s = '';
    for (let i = n.segStart; i < n.segEnd && s.length < 400; i++) s += (s ? ' ' : '') + this.segments[i]!.text;
    return s;
  }

  private openBlock(name: string, attribs: Record<string, string>, softHere: boolean): number {
    this.flush();
    let f = F_BLOCK;
    if (softHere) {
      f |= F_SOFT;
      this.soft++;
    }
    const parent = this.block;
    this.blockStack.push(this.nodes.length);
    this.nodes.push({
      tag: name,
      parent,
      hint: this.nodes[parent]!.hint * ownHint(attribs),
      soft: this.soft > 0,
      kind: kindOf(name, attribs.role),
      segStart: this.segments.length,
      segEnd: this.segments.length,
    });
    return f;
  }

  private flush(): void {
    if (this.parts.length === 0) return;
    const text = this.pre === 0 ? tidy(this.parts.join('')) : this.parts.join('').replace(/^\n+|\s+$/g, '');
    const linkLen = this.partsLinkLen;
    this.parts = [];
    this.partsLinkLen = 0;
    if (text === '') return;
    const len = weightedLength(text);
    const l = Math.min(linkLen, len);
    this.segments.push({ text, len, linkLen: l, owner: this.block, soft: this.soft > 0 });
    this.totalLen += len;
    this.totalLinkLen += l;
  }
}

function tidy(text: string): string {
  return text
    .replace(/ *\n */g, '\n')
    .replace(/ {2,}/g, ' ')
    .trim();
}
