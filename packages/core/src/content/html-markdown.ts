import { createRequire } from 'node:module';
import type { parseHTML as ParseHTML } from 'linkedom';
import type TurndownService from 'turndown';
import type { gfm as Gfm } from 'turndown-plugin-gfm';

/** Where the article sits, most specific first; the body when none is there. */
const ARTICLE_ROOTS = ['[role="main"]', 'main', 'article', '#content', '.content', 'body'];

/** What never belongs to the article: the site's chrome, scripts and controls. */
const CHROME =
  'script, style, noscript, template, iframe, object, embed, form, button, nav, aside, footer, [role="navigation"], [role="banner"], [role="contentinfo"], [aria-hidden="true"], a.headerlink';

/**
 * The longest article (its html, after the chrome is removed) converted, in characters: turndown's time grows faster
 * than the page (a 2.5 MB index page takes seconds), so a longer article's Markdown is its text (`undefined` here).
 */
export const MARKDOWN_MAX_HTML_CHARS = 300_000;

/** Blocks inside table cells, which a one-line GFM cell cannot hold. */
const CELL_BLOCKS = 'td p, th p, td div, th div';

/** Attributes that hold a url, made absolute against the page's url (or its `<base>`). */
const URL_ATTRIBUTES: Array<[string, string]> = [
  ['a[href]', 'href'],
  ['img[src]', 'src'],
];

/** The few DOM members used here (core compiles without the DOM library). */
interface LinkedElement {
  textContent: string | null;
  outerHTML: string;
  querySelectorAll(selector: string): Iterable<LinkedElement>;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  remove(): void;
  childNodes: ArrayLike<unknown>;
  replaceWith(...nodes: unknown[]): void;
}

/** A parsed page, as far as it is read here. */
interface LinkedDocument {
  querySelector(selector: string): LinkedElement | null;
}

let service: TurndownService | undefined;
let parseHTML: typeof ParseHTML | undefined;

/**
 * One converter per thread: ATX headings, fenced code, GFM tables and strike-through. Loaded on the first page, not
 * when core is imported (linkedom and turndown's DOM cost memory in every thread that loads them).
 */
function converter(): TurndownService {
  if (service) return service;
  const require = createRequire(import.meta.url);
  parseHTML = (require('linkedom') as { parseHTML: typeof ParseHTML }).parseHTML;
  const Turndown = require('turndown') as typeof TurndownService;
  const { gfm } = require('turndown-plugin-gfm') as { gfm: typeof Gfm };
  service = new Turndown({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
    linkStyle: 'inlined',
  });
  service.use(gfm);
  // A <pre> without <code> inside (Sphinx, many generators) is a code block too.
  service.addRule('pre-block', {
    filter: (node) => node.nodeName === 'PRE' && node.firstChild?.nodeName !== 'CODE',
    replacement: (_content, node) => {
      const text = node.textContent ?? '';
      return `\n\n\`\`\`\n${text.replace(/\n$/, '')}\n\`\`\`\n\n`;
    },
  });
  return service;
}

/** What {@link articleHtml} keeps of a page. */
export interface ArticleOptions {
  /**
   * `true`: the page's main element (its `role="main"`, `<main>`, `<article>`, or the body) without the site's chrome
   * (navigation, asides, footers, forms); `false`: the whole body, without scripts, styles and templates only.
   * @default true
   */
  mainContent?: boolean | undefined;
}

/** What never belongs to a page read whole: what a reader never sees. */
const INVISIBLE = 'script, style, noscript, template';

/**
 * The article of an html page as html: its main element (see {@link ArticleOptions}), the chrome removed, every link
 * and picture made absolute against the page's url (or its `<base>`); undefined when the page has no text or the
 * result is longer than {@link MARKDOWN_MAX_HTML_CHARS}. Pure: safe on a worker thread.
 */
export function articleHtml(html: string, pageUrl: string, options: ArticleOptions = {}): string | undefined {
  // A page five times the longest article is not parsed at all (its parse alone costs a second).
  if (html.length > 5 * MARKDOWN_MAX_HTML_CHARS) return undefined;
  converter();
  const { document } = (parseHTML as typeof ParseHTML)(html) as unknown as { document: LinkedDocument };
  const base = baseOf(document, pageUrl);
  let root: LinkedElement | null = null;
  for (const selector of options.mainContent === false ? ['body'] : ARTICLE_ROOTS) {
    root = document.querySelector(selector);
    if (root && (root.textContent ?? '').trim().length > 0) break;
  }
  if (!root) return undefined;
  for (const el of Array.from(root.querySelectorAll(options.mainContent === false ? INVISIBLE : CHROME))) el.remove();
  // A GFM table cell is one line: paragraphs and blocks inside cells (Sphinx writes <td><p>…</p></td>) are unwrapped.
  for (const el of Array.from(root.querySelectorAll(CELL_BLOCKS))) el.replaceWith(...Array.from(el.childNodes), ' ');
  for (const [selector, attribute] of URL_ATTRIBUTES) {
    for (const el of Array.from(root.querySelectorAll(selector))) {
      const value = el.getAttribute(attribute) ?? '';
      const absolute = absoluteUrl(value, base);
      if (absolute === undefined) el.removeAttribute(attribute);
      else el.setAttribute(attribute, absolute);
    }
  }
  const article = root.outerHTML;
  return article.length > MARKDOWN_MAX_HTML_CHARS ? undefined : article;
}

/**
 * The article of an html page as Markdown: {@link articleHtml} converted, headings, lists, tables, code blocks and
 * links kept; undefined for an article longer than {@link MARKDOWN_MAX_HTML_CHARS}. Pure: safe on a worker thread.
 */
export function htmlToMarkdown(html: string, pageUrl: string, options: ArticleOptions = {}): string | undefined {
  const article = articleHtml(html, pageUrl, options);
  return article === undefined ? undefined : articleMarkdown(article);
}

/** Html already cleaned by {@link articleHtml}, as Markdown. */
export function articleMarkdown(article: string): string {
  return converter()
    .turndown(article)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The url links resolve against: the page's `<base href>` when it is a web url, else the page's own. */
function baseOf(document: LinkedDocument, pageUrl: string): string {
  const href = document.querySelector('base[href]')?.getAttribute('href');
  const base = href ? absoluteUrl(href, pageUrl) : undefined;
  return base ?? pageUrl;
}

/** `value` resolved against `base`; undefined for script urls and what does not parse. */
function absoluteUrl(value: string, base: string): string | undefined {
  if (value.startsWith('#')) return value.length > 1 ? `${base.split('#')[0]}${value}` : undefined;
  try {
    const url = new URL(value, base);
    return /^(https?|file|mailto):$/.test(url.protocol) ? url.href : undefined;
  } catch {
    return undefined;
  }
}
