import type { ComponentFactory } from '../compose/component-factory.js';
import { htmlToMarkdown } from '../content/html-markdown.js';
import { CrawlerError } from '../errors.js';
import { decodeBody } from '../fetch/charset.js';
import { isMarkupType } from '../fetch/content-type.js';
import type { Catalog, ResourceRow } from '../model.js';
import { pageMarkdownOf } from '../outputs/file-output-channel.js';
import { type MarkdownSource, markdownPath, readFrontMatter } from '../outputs/page-markdown.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { CatalogRef, CatalogService } from './catalog-service.js';
import type { LedgerService } from './ledger-service.js';

/** A saved page named by its resource id, or by its url (in a catalog, else the one whose current version holds it). */
export interface PageRef {
  id?: string | undefined;
  url?: string | undefined;
  catalog?: CatalogRef | undefined;
  /** @default the catalog's current version */
  version?: number | undefined;
}

/** A saved page's Markdown with what cites it. */
export interface PageMarkdown {
  id: string;
  url: string;
  title: string;
  catalog: { id: string; name: string };
  version: number;
  fetchedAt: string;
  /** Where the Markdown came from (see MarkdownSource). */
  source: MarkdownSource;
  /** The whole file: front matter, then the body. */
  markdown: string;
}

/** One piece of a page's Markdown, small enough for a model's context, with where the next one starts. */
export interface MarkdownPiece {
  text: string;
  offset: number;
  /** The offset of the next piece; undefined at the end. */
  next: number | undefined;
  total: number;
}

/** Saved pages as a reader gets them: a page's Markdown, by id or by url. */
export class PageService {
  readonly #f: ComponentFactory;
  readonly #catalogs: () => Promise<CatalogService>;
  readonly #ledger: LedgerService;

  constructor(factory: ComponentFactory, catalogs: () => Promise<CatalogService>, ledger: LedgerService) {
    this.#f = factory;
    this.#catalogs = catalogs;
    this.#ledger = ledger;
  }

  /** The resource row a reference names. @throws CrawlerError NOT_FOUND when no saved page is there */
  async resource(ref: PageRef): Promise<ResourceRow> {
    const db = await this.#f.database();
    let id = ref.id;
    if (id === undefined) {
      if (!ref.url) throw new CrawlerError('BAD_INPUT', 'url: name the page by its url or its id');
      const fate = await this.#ledger.why(ref.url, {
        ...(ref.catalog ? { catalog: ref.catalog } : {}),
        ...(ref.version !== undefined ? { version: ref.version } : {}),
      });
      const saved = fate.row;
      if (saved?.outcome !== 'SAVED') {
        throw new CrawlerError('NOT_FOUND', `no saved page for ${fate.url}: ${fate.explanation}`);
      }
      id = saved.id;
    }
    const row = await db.resources.getResource(id);
    if (!row) throw new CrawlerError('NOT_FOUND', `no saved page ${id}`);
    return row;
  }

  /** A saved page's Markdown: its `.md` file (replay writes them), else made now from its stored html and text. */
  async markdown(ref: PageRef): Promise<PageMarkdown> {
    const row = await this.resource(ref);
    const catalog = await (await this.#catalogs()).get({ id: row.catalogId });
    const markdown =
      (await this.#f.blobs.getText(markdownPath(row.textPath))) ??
      (await markdownFromFiles(this.#f.blobs, catalog, row.version, row));
    const source = readFrontMatter(markdown).fields.source;
    return {
      id: row.id,
      url: row.url,
      title: row.title,
      catalog: { id: catalog.id, name: catalog.name },
      version: row.version,
      fetchedAt: row.fetchedAt,
      source: source === 'html' || source === 'site' ? source : 'text',
      markdown,
    };
  }
}

/** A page's Markdown file made from its stored html (a page) or text (a document); '' body when neither is there. */
export async function markdownFromFiles(
  blobs: BlobStore,
  catalog: Pick<Catalog, 'id' | 'name'>,
  version: number,
  resource: ResourceRow,
): Promise<string> {
  const text = (await blobs.getText(resource.textPath)) ?? '';
  let markdown: string | undefined;
  if (isMarkupType(resource.contentType)) {
    const bytes = await blobs.get(resource.htmlPath);
    if (bytes) markdown = htmlToMarkdown(decodeBody(bytes, resource.contentType).text, resource.url);
  }
  return pageMarkdownOf({ catalog, version, resource, text, markdown });
}

/**
 * The piece of `text` from `offset`, at most `size` characters, cut at the last paragraph (else line, else space)
 * break of its second half so a piece ends where a reader would pause.
 */
export function markdownPiece(text: string, offset: number, size: number): MarkdownPiece {
  const start = Math.max(0, Math.min(offset, text.length));
  let end = Math.min(text.length, start + Math.max(1, size));
  if (end < text.length) {
    const window = text.slice(start, end);
    const half = Math.floor(window.length / 2);
    for (const sep of ['\n\n', '\n', ' ']) {
      const at = window.lastIndexOf(sep);
      if (at >= half) {
        end = start + at + sep.length;
        break;
      }
    }
  }
  return { text: text.slice(start, end), offset: start, next: end < text.length ? end : undefined, total: text.length };
}
