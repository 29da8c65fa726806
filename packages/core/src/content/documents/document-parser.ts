/**
 * DocumentContentParser (seed 000): reads a document that is not an html page — a PDF, a Word file, plain text,
 * Markdown, CSV — into the text, title and links a resource is made of. Pure: bytes in, document out, no I/O, so it
 * runs on a worker thread that can be terminated when a hostile document hangs it.
 */
export interface ParsedDocument {
  /** The document's own title (PDF Title, docx core title, a Markdown `# heading`), or '' when it has none. */
  title: string;
  /** The text, paragraphs separated by blank lines. */
  text: string;
  /** Absolute urls the document links to (PDF link annotations, docx hyperlinks, Markdown links), in order. */
  links: string[];
  /** What the document says about itself: author, subject, keywords, created, modified, pages, … */
  metadata: Record<string, string>;
  /** Its language when it declares one, else ''. */
  lang: string;
}

export interface DocumentContentParser {
  /** `pdf`, `docx`, `text`, or the name it is registered under. */
  readonly name: string;
  /** Media types it reads, lower case, without parameters (`application/pdf`). */
  readonly mediaTypes: readonly string[];
  /** Extensions (with the dot) it reads when the type says nothing (`application/octet-stream`, a file). */
  readonly extensions: readonly string[];
  /** Throws when the bytes are not a document it can read; the crawl ends such a document as REJECTED_IMPORT. */
  parse(bytes: Uint8Array, url: string, contentType: string): Promise<ParsedDocument>;
}
