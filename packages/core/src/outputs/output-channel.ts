import type { Catalog, ImageRow, OutputLayer, ResourceRow } from '../model.js';
import type { MarkdownOrigin, MarkdownSource } from './page-markdown.js';

/** A picture of a page, stored once per version; `bytes` present when it was just fetched. */
export interface PageImage {
  row: ImageRow;
  alt: string;
  surroundingText: string;
  bytes?: Buffer | undefined;
}

/** Everything the output chain needs about one saved page. */
export interface CrawledPage {
  catalog: Catalog;
  version: number;
  resource: ResourceRow;
  /** The page as fetched (undefined on replay: the file layer already holds it). */
  html?: Buffer | string | undefined;
  /** The article text the file layer writes; the index and the vectors are built from it. */
  text: string;
  /**
   * The article as Markdown, without front matter, when the caller converted it: the file layer then writes the
   * page's `.md`. A crawl leaves it out (the conversion costs more than the rest of the page: `replay --layers file`
   * and the readers make it from the stored html, see docs/mcp.md).
   */
  markdown?: string | undefined;
  /** Where `markdown` came from: the site's own (`site`), else a conversion (`html`). @default 'html' */
  markdownSource?: MarkdownSource | undefined;
  /** The site's own Markdown: its url, and how the crawl found it (said in the front matter). */
  markdownOrigin?: MarkdownOrigin | undefined;
  images: PageImage[];
}

/**
 * One output layer. The composite runs file → index → vector in that order, then any other channel (a library
 * user's, named by its own `layer`); a failing channel other than file is counted and reported, never fails the crawl.
 */
export interface OutputChannel {
  /** `file`, `index`, `vector`, or the name of an extra channel. */
  readonly layer: OutputLayer | (string & {});
  /** Write one page (channels may buffer; flush() makes it durable). */
  write(page: CrawledPage): Promise<void>;
  /** Make everything written so far durable and searchable. */
  flush(): Promise<void>;
  /** Remove what this layer holds for a version. Returns what it removed (or would, on dryRun). */
  deleteVersion(catalogId: string, version: number, dryRun: boolean): Promise<{ count: number; bytes: number }>;
  /**
   * Told once per page when this layer has made it durable (or failed it), for layers that write later than
   * write() returns (batched index upserts, queued embeddings). Layers that write at once need not call it.
   */
  setDurableListener?(listener: (resourceId: string, ok: boolean) => void): void;
  /**
   * Stop writing what is still queued, because the run is stopping: those pages stay owed (the frontier's journal) and
   * the next run writes them from the files. Resolves once the write in progress is through. For layers that queue
   * long (the vectors); the others need not have it.
   */
  abandon?(): Promise<void>;
  /** Pages this layer made durable, pages it failed, and the last error. */
  counts(): { written: number; failed: number; lastError?: string };
  close(): Promise<void>;
}
