/** What a fetch returned. `body` is the raw bytes; decoding is the Extractor's job (see `text`). */
export interface FetchResult {
  /** The url finally answered, after redirects (normalised). */
  finalUrl: string;
  /** Every url on the redirect chain, first to last, excluding finalUrl. */
  redirects: string[];
  status: number;
  contentType: string;
  charset: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The body decoded with the detected charset, when it is markup or text. */
  text?: string | undefined;
  etag: string | null;
  lastModified: string | null;
  elapsedMs: number;
  /** Set when a browser rendered the page (the `browser` and `adaptive` extractors): why, and whether it rendered. */
  rendering?: Rendering | undefined;
  /**
   * A folder of a file-system source (`file:` urls): the urls of its children, listed only by a GET (never by a
   * HEAD), so the document pipeline can refuse a folder on its metadata before anything inside it is listed.
   */
  children?: string[] | undefined;
}

/**
 * A page the browser rendered. `reason` is the RenderingDetector's (`empty-mount`, `noscript`, `mostly-scripts`) or
 * `always` (the `browser` extractor); `unrendered` is a page still a shell when the settle wait ran out.
 */
export interface Rendering {
  reason: string;
  outcome: 'rendered' | 'unrendered';
  /** Time in the browser: navigation, network idle, the wait for text, the scrolls. */
  ms: number;
  /** Requests of the page refused: other hosts the catalog does not allow, downloads, pictures, media and fonts. */
  blocked: number;
}

export interface FetchOptions {
  /** `HEAD` asks for the metadata only (the optional HEAD pass of the document pipeline). @default 'GET' */
  method?: 'GET' | 'HEAD' | undefined;
  /** Conditional GET headers for a refresh. */
  etag?: string | null | undefined;
  lastModified?: string | null | undefined;
  /**
   * Decode a markup body into `text` here. false leaves decoding to the caller (the charset is still detected):
   * the crawl decodes on its extraction worker, off the event loop. @default true
   */
  decode?: boolean | undefined;
  /** Images and other binaries: accept any type. */
  binary?: boolean | undefined;
  /** The `Accept` header, in place of the one for pages (or for any type, with `binary`). */
  accept?: string | undefined;
  /**
   * Pages only (see `isPageType`): an answer that is text or xml but not html is abandoned after its headers, like
   * a binary one, since the crawl rejects it anyway. Off: text and xml bodies are read too (robots.txt, sitemaps).
   */
  pagesOnly?: boolean | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Documents the crawl reads (PDF, Word, text: see content/documents): for an answer it returns a cap for, the
   * body is read whatever `pagesOnly` says, up to that many bytes.
   */
  document?: ((contentType: string, url: string) => number | undefined) | undefined;
  /** Body cap override (bytes). */
  maxBytes?: number | undefined;
  /** Redirects to follow for this request; 0 returns a 3xx as it is. Default: the extractor's setting. */
  maxRedirects?: number | undefined;
}

/**
 * Extractor: fetch one url. Throws FetchError for transport failures (retryable or not, with its `reason`);
 * returns a FetchResult for every HTTP answer, whatever its status.
 */
export interface Extractor {
  readonly name: string;
  fetch(url: string, options?: FetchOptions): Promise<FetchResult>;
  close(): Promise<void>;
}
