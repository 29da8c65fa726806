/** A picture a page references. */
export interface ImageRef {
  url: string;
  alt: string;
  /**
   * Text around the picture: the nearest heading before it, the `<figure>` caption (else the text of the block it
   * sits in, about 300 characters) and its `title` attribute when that says more, joined by ` — ` (each part left
   * out when empty or already in the caption).
   */
  surroundingText: string;
  width?: number | undefined;
  height?: number | undefined;
  /** 'img' | 'srcset' | 'picture' | 'og:image' */
  source: string;
}

export interface ExtractedLink {
  url: string;
  text: string;
  /** rel="nofollow" */
  nofollow: boolean;
  /**
   * The link as written (absolute: see url/found-as.ts), when url normalisation changed it: the url ledger keeps it
   * on the url's row. Absent when the link was written in its normal form.
   */
  foundAs?: string | undefined;
}

export interface ExtractedContent {
  title: string;
  /** The article text, not the navigation. Paragraphs separated by blank lines. */
  text: string;
  /** Anchor text length over total text length of the whole page (0..1). */
  linkDensity: number;
  /**
   * The article as Markdown, when the catalog writes Markdown files (`markdownFiles`): made on the extraction worker
   * by html-markdown.ts; undefined otherwise, or for an article too long to convert.
   */
  markdown?: string | undefined;
  /** Absolute links found in the original markup (resolved against <base> / the page url). */
  links: ExtractedLink[];
  images: ImageRef[];
  lang: string;
  canonical: string | null;
  /**
   * The page's own Markdown, when it names one (`<link rel="alternate" type="text/markdown" href>`): absolute. The
   * crawl fetches it and keeps it as the page's Markdown (stages/site-markdown.ts). Absent or null: none.
   */
  markdownUrl?: string | null | undefined;
  /** <meta name="robots"> */
  robots: { noindex: boolean; nofollow: boolean };
  description: string;
  /**
   * Set by the crawl's extraction when the page's bytes were not valid in the charset found for it (declared,
   * sniffed or the utf-8 default): the charset the text was decoded with instead (`windows-1252` or `utf-8`).
   * The engine counts these (`report.content.charsetFallbacks`) and stores the charset used on the resource row.
   */
  charsetFallback?: string | undefined;
}

/** ContentExtractor: the article, not the navigation; pure (no I/O), safe to run on a worker thread. */
export interface ContentExtractor {
  readonly name: string;
  extract(html: string, pageUrl: string): ExtractedContent;
}
