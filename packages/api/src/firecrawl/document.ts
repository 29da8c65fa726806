import { articleHtml, articleMarkdown, isMarkupType } from '@greenfinger/core/internal';
import type { FirecrawlDocument, ScrapeWants } from './shapes.js';

/** A page as the document builder reads it: fetched now (scrape) or stored (crawl). */
export interface PageSource {
  /** The url asked for. */
  sourceURL: string;
  /** The url answered. */
  url: string;
  status: number;
  contentType: string;
  /** The body decoded ('' when there is none). */
  body: string;
  /** The article text, for a page that is not html (a document) or whose Markdown could not be made. */
  text: string;
  title: string;
  description: string;
  lang: string;
  links: string[];
  images: string[];
  /** More metadata (Greenfinger's own: catalog, version, fetchedAt, …). */
  extra?: Record<string, unknown>;
}

/**
 * Firecrawl's document of a page: `markdown` (the article, or the whole page with `onlyMainContent: false`, as
 * Markdown; a document's text), `html` (the same part as cleaned html: chrome and scripts removed, links absolute),
 * `rawHtml` (the body as it came), `links`, `images`, and the metadata Firecrawl names (title, description,
 * language, sourceURL, url, statusCode, contentType).
 */
export function firecrawlDocument(page: PageSource, wants: ScrapeWants): FirecrawlDocument {
  const doc: FirecrawlDocument = {
    metadata: {
      title: page.title,
      ...(page.description ? { description: page.description } : {}),
      ...(page.lang ? { language: page.lang } : {}),
      sourceURL: page.sourceURL,
      url: page.url,
      statusCode: page.status,
      contentType: page.contentType,
      ...page.extra,
    },
  };
  const markup = isMarkupType(page.contentType) && page.body !== '';
  const needsArticle = wants.formats.has('markdown') || wants.formats.has('html');
  const article =
    markup && needsArticle ? articleHtml(page.body, page.url, { mainContent: wants.onlyMainContent }) : undefined;
  if (wants.formats.has('markdown')) doc.markdown = article !== undefined ? articleMarkdown(article) : page.text;
  if (wants.formats.has('html')) doc.html = article ?? (markup ? page.body : '');
  if (wants.formats.has('rawHtml')) doc.rawHtml = page.body;
  if (wants.formats.has('links')) doc.links = page.links;
  if (wants.formats.has('images')) doc.images = page.images;
  return doc;
}
