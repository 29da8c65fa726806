import type { ResourceRow } from '../../model.js';

/** What a pre-import consumer sees: the document as fetched, before it is read. */
export interface FetchedDocument {
  readonly url: string;
  readonly status: number;
  readonly contentType: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** What a post-import consumer sees: the document read, right before it goes to the output channels. */
export interface ImportedDocument {
  readonly url: string;
  readonly title: string;
  readonly text: string;
  readonly links: readonly string[];
  /** A document's own metadata (author, pages, …); empty for an html page. */
  readonly metadata: Readonly<Record<string, string>>;
  readonly resource: Readonly<ResourceRow>;
}

/**
 * Pre- and post-import consumers (seed 002): code of a library user that sees every document of a crawl, before it
 * is read (DOCUMENT_PREIMPORTED) and before it is written (DOCUMENT_POSTIMPORTED). Awaited, one after the other, in
 * the page's pipeline; what one throws is logged and the crawl goes on with the page.
 */
export interface DocumentConsumer {
  readonly name: string;
  preImport?(doc: FetchedDocument): void | Promise<void>;
  postImport?(doc: ImportedDocument): void | Promise<void>;
}
