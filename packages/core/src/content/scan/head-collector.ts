import { F_H1, F_TITLE } from './flags.js';
import { clean, dim } from './text.js';

/** The page's og:image, with its alt and size metas. */
export interface OgImage {
  url: string;
  alt: string;
  width?: number | undefined;
  height?: number | undefined;
}

/** Where a head <link rel=alternate hreflang> goes: the link collector. */
export type LinkSink = (href: string, text: string, nofollow: boolean) => void;

/**
 * The page's naming and metadata: <title> (the first, outside dropped content), the first <h1>, lang, <base>,
 * canonical, description, Open Graph title/description/image and robots metas. The first value wins (the
 * og:image size metas: the last).
 */
export class HeadCollector {
  inTitle = false;
  baseHref = '';
  canonical = '';
  /** The page's own Markdown: `<link rel="alternate" type="text/markdown" href>` (the first one). */
  markdown = '';
  ogImage: OgImage | null = null;
  noindex = false;
  nofollow = false;
  private rawTitle = '';
  private titleDone = false;
  private ogTitle = '';
  private rawH1 = '';
  private h1State = 0; // 0 none yet, 1 capturing, 2 done
  private htmlLang = '';
  private langMeta = '';
  private metaDescription = '';
  private ogDescription = '';

  constructor(private readonly addLink: LinkSink) {}

  /** Every element's open tag; `visible` is false inside dropped content. */
  open(name: string, a: Record<string, string>, visible: boolean): number {
    switch (name) {
      case 'html':
        this.html(a);
        return 0;
      case 'base':
        if (!this.baseHref && a.href) this.baseHref = a.href;
        return 0;
      case 'link':
        this.link(a);
        return 0;
      case 'meta':
        this.meta(a);
        return 0;
      case 'title':
        if (this.titleDone || !visible) return 0;
        this.inTitle = true;
        return F_TITLE;
      case 'h1':
        if (this.h1State !== 0 || !visible) return 0;
        this.h1State = 1;
        return F_H1;
    }
    return 0;
  }

  /** Raw text inside the title. */
  titleText(data: string): void {
    this.rawTitle += data;
  }

  /** A piece of visible text, as the segment collector normalised it. */
  text(piece: string): void {
    if (this.h1State === 1) this.rawH1 += piece;
  }

  close(flags: number): void {
    if (flags & F_TITLE) {
      this.inTitle = false;
      this.titleDone = true;
    }
    if (flags & F_H1) this.h1State = 2;
  }

  get title(): string {
    return clean(this.rawTitle) || this.ogTitle;
  }

  get h1(): string {
    return clean(this.rawH1);
  }

  get lang(): string {
    return this.htmlLang || this.langMeta;
  }

  get description(): string {
    return this.metaDescription || this.ogDescription;
  }

  private html(a: Record<string, string>): void {
    if (!this.htmlLang && a.lang) this.htmlLang = a.lang.trim();
    else if (!this.htmlLang && a['xml:lang']) this.htmlLang = a['xml:lang'].trim();
  }

  private link(a: Record<string, string>): void {
    const rel = (a.rel ?? '').toLowerCase();
    if (!a.href) return;
    if (/\bcanonical\b/.test(rel)) {
      if (!this.canonical) this.canonical = a.href;
    } else if (/\balternate\b/.test(rel) && /^text\/(?:x-)?markdown\b/i.test((a.type ?? '').trim())) {
      if (!this.markdown) this.markdown = a.href;
    } else if (/\balternate\b/.test(rel) && a.hreflang) {
      this.addLink(a.href, a.hreflang, false);
    }
  }

  private meta(a: Record<string, string>): void {
    const key = (a.name ?? a.property ?? '').toLowerCase();
    const content = a.content ?? '';
    if (!key) {
      if (a['http-equiv']?.toLowerCase() === 'content-language') this.langMeta = content.split(',')[0]!.trim();
    } else if (key === 'description') {
      if (!this.metaDescription) this.metaDescription = clean(content);
    } else if (key === 'robots') {
      this.robots(content.toLowerCase());
    } else {
      this.openGraph(key, content);
    }
  }

  private robots(c: string): void {
    if (/\b(noindex|none)\b/.test(c)) this.noindex = true;
    if (/\b(nofollow|none)\b/.test(c)) this.nofollow = true;
  }

  private openGraph(key: string, content: string): void {
    switch (key) {
      case 'og:description':
        if (!this.ogDescription) this.ogDescription = clean(content);
        break;
      case 'og:title':
        if (!this.ogTitle) this.ogTitle = clean(content);
        break;
      case 'og:image':
      case 'og:image:url':
      case 'og:image:secure_url':
        if (!this.ogImage && content) this.ogImage = { url: content.trim(), alt: '' };
        break;
      case 'og:image:alt':
        if (this.ogImage && !this.ogImage.alt) this.ogImage.alt = clean(content);
        break;
      case 'og:image:width':
        if (this.ogImage) this.ogImage.width = dim(content);
        break;
      case 'og:image:height':
        if (this.ogImage) this.ogImage.height = dim(content);
        break;
    }
  }
}
