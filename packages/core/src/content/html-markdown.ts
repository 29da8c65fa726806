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

/**
 * The article of an html page as Markdown: the page's main element (its `role="main"`, `<main>`, `<article>`, or
 * the body) without navigation, scripts and forms; headings, lists, tables, code blocks and links kept, every link
 * and picture made absolute against the page's url; undefined for an article longer than
 * {@link MARKDOWN_MAX_HTML_CHARS}. Pure: safe on a worker thread.
 */
export function htmlToMarkdown(html: string, pageUrl: string): string | undefined {
  // A page five times the longest article is not parsed at all (its parse alone costs a second).
  if (html.length > 5 * MARKDOWN_MAX_HTML_CHARS) return undefined;
  const turndown = converter();
  const { document } = (parseHTML as typeof ParseHTML)(html) as unknown as { document: LinkedDocument };
  const base = baseOf(document, pageUrl);
  let root: LinkedElement | null = null;
  for (const selector of ARTICLE_ROOTS) {
    root = document.querySelector(selector);
    if (root && (root.textContent ?? '').trim().length > 0) break;
  }
  if (!root) return undefined;
  for (const el of Array.from(root.querySelectorAll(CHROME))) el.remove();
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
  if (article.length > MARKDOWN_MAX_HTML_CHARS) return undefined;
  return turndown
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
