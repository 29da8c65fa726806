import type { Catalog, ResourceRow } from '../model.js';

/**
 * Where a page's Markdown came from: `html` (converted from the page's article), `text` (a document's text, or a
 * page read as plain text), or the site's own Markdown (`site`) when it offered one.
 */
export type MarkdownSource = 'html' | 'text' | 'site';

/**
 * How the crawl found a site's own Markdown of a page: the page named it (`link`: `<link rel="alternate"
 * type="text/markdown">`), the host's /llms.txt listed it (`llms.txt`), it was the page's `.md` twin on a host whose
 * llms.txt follows that convention (`twin`), or the page's own url answered it to `Accept: text/markdown` (`accept`).
 */
export type MarkdownFrom = 'link' | 'llms.txt' | 'twin' | 'accept';

/** Where a site's own Markdown of a page was: its url, and how the crawl found it. */
export interface MarkdownOrigin {
  url: string;
  from: MarkdownFrom;
}

/** What the front matter of a page's Markdown says. */
export interface PageMarkdownInput {
  catalog: Pick<Catalog, 'id' | 'name'>;
  version: number;
  resource: Pick<ResourceRow, 'title' | 'url' | 'fetchedAt'>;
  /** The Markdown body; the text when there is none. */
  body: string;
  source: MarkdownSource;
  /** With `source: site`: where it was (front matter `markdown_url`, `markdown_from`). */
  origin?: MarkdownOrigin | undefined;
}

/** The `.md` key beside a page's `.txt`. */
export function markdownPath(textPath: string): string {
  return textPath.replace(/\.txt$/, '.md');
}

/**
 * A page's Markdown file: YAML front matter (title, url, catalog, version, fetched, source, and for the site's own
 * Markdown its url and how it was found), then the body.
 * Strings are written as JSON strings, which YAML reads as double-quoted scalars.
 */
export function pageMarkdown(p: PageMarkdownInput): string {
  const lines = [
    '---',
    `title: ${JSON.stringify(p.resource.title)}`,
    `url: ${JSON.stringify(p.resource.url)}`,
    `catalog: ${JSON.stringify(p.catalog.name)}`,
    `version: ${p.version}`,
    `fetched: ${JSON.stringify(p.resource.fetchedAt)}`,
    `source: ${p.source}`,
    ...(p.origin ? [`markdown_url: ${JSON.stringify(p.origin.url)}`, `markdown_from: ${p.origin.from}`] : []),
    '---',
    '',
  ];
  return `${lines.join('\n')}${p.body.trim()}\n`;
}

/** The front matter of a page's Markdown file, read back (`undefined` when it has none). */
export function readFrontMatter(markdown: string): { fields: Record<string, string | number>; body: string } {
  const m = /^---\n([\s\S]*?)\n---\n\n?/.exec(markdown);
  if (!m) return { fields: {}, body: markdown };
  const fields: Record<string, string | number> = {};
  for (const line of (m[1] ?? '').split('\n')) {
    const at = line.indexOf(': ');
    if (at < 0) continue;
    const raw = line.slice(at + 2);
    let value: string | number = raw;
    try {
      value = JSON.parse(raw) as string | number;
    } catch {
      // a bare word (the source)
    }
    fields[line.slice(0, at)] = value;
  }
  return { fields, body: markdown.slice(m[0].length) };
}
