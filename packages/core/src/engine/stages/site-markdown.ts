import { errorMessage } from '../../errors.js';
import type { MarkdownFrom } from '../../outputs/page-markdown.js';
import { twinUrlOf } from '../flow/llms-txt.js';
import { NEXT, type PageInProgress, type PipelineContext, type SiteMarkdown, type Stage } from '../page.js';
import { politeFetch } from '../polite-fetch.js';

/** The most of a site's Markdown kept for one page. */
export const SITE_MARKDOWN_MAX_BYTES = 5 * 1024 * 1024;

/** Answers taken for Markdown: the type a site gives it, or plain text (many servers know no `.md` type). */
const MARKDOWN_TYPES = /^(?:text\/(?:x-)?markdown|text\/plain)\b/i;
/** Asked of a page's own url (negotiation): nothing but Markdown is taken for it. */
const MARKDOWN_ONLY = /^text\/(?:x-)?markdown\b/i;
const ACCEPT_MARKDOWN = 'text/markdown, text/x-markdown;q=0.9, text/plain;q=0.5';

/**
 * The site's own Markdown of a page (issue 28), kept as the page's `.md` (front matter `source: site`, with
 * `markdown_url` and `markdown_from`) instead of a conversion made from its html. Where a site offers it, first found
 * first: the page names it (`<link rel="alternate" type="text/markdown" href>`: `link`); the host's /llms.txt lists
 * the page's `.md` twin (`llms.txt`); the host's llms.txt follows that convention, so the page's url with `.md`
 * appended is asked (`twin`); the page's answer says it varies on `Accept` (`Vary: Accept`), so its url is asked again
 * with `Accept: text/markdown` (`accept`). One request, under the host's politeness and robots.txt, on the page's own
 * host only; a site that offers none costs nothing but its llms.txt, asked once a run. A Markdown that does not answer
 * 200 with a Markdown or text type, is empty or over 5 MB is left: the page is saved as any other, and its Markdown
 * made from its html when it is read. What happened is noted in the run report (`site-markdown:*`).
 */
export const siteMarkdown: Stage = {
  name: 'site-markdown',
  run: async (page, ctx) => {
    if (page.document) return NEXT;
    const offered = await ctx.clock.time('fetch', whereOffered(page, ctx));
    if (offered) page.siteMarkdown = await ctx.clock.time('fetch', fetchSiteMarkdown(page, offered, ctx));
    return NEXT;
  },
};

/** Where the site offers the page's Markdown, and how that was found; `undefined` when it offers none. */
async function whereOffered(
  page: PageInProgress,
  ctx: PipelineContext,
): Promise<{ url: string; from: MarkdownFrom } | undefined> {
  const named = page.content?.markdownUrl;
  if (named) return { url: named, from: 'link' };
  const pageUrl = page.result.finalUrl || page.entry.url;
  if (!/^https?:/.test(pageUrl)) return undefined;
  const llms = await ctx.llmsTxt.forHost(pageUrl);
  if (llms) {
    const bare = new URL(pageUrl);
    bare.hash = '';
    const listed = llms.twins.get(bare.href);
    return listed ? { url: listed, from: 'llms.txt' } : { url: twinUrlOf(pageUrl), from: 'twin' };
  }
  const vary = (page.result.headers.vary ?? '').toLowerCase();
  if (vary.split(',').some((v) => v.trim() === 'accept' || v.trim() === '*')) return { url: pageUrl, from: 'accept' };
  return undefined;
}

async function fetchSiteMarkdown(
  page: PageInProgress,
  offered: { url: string; from: MarkdownFrom },
  ctx: PipelineContext,
): Promise<SiteMarkdown | undefined> {
  const { deps: d, counters } = ctx;
  const { url, from } = offered;
  /** Notes what became of it in the run report, and answers the Markdown when it is kept. */
  const ends = (what: string, text?: string): SiteMarkdown | undefined => {
    counters.note(`site-markdown:${what}`, page.entry.url);
    return text === undefined ? undefined : { text, url, from };
  };
  if (new URL(url).host !== new URL(page.entry.url).host) return ends('other-host');
  if (d.robots && !(await d.robots.isAllowed(url))) return ends('robots-txt');
  try {
    const r = await politeFetch(d.politeness, d.imageFetcher, url, {
      binary: true,
      maxBytes: SITE_MARKDOWN_MAX_BYTES,
      accept: ACCEPT_MARKDOWN,
    });
    if (r.status !== 200) return ends(`status-${r.status}`);
    if (!(from === 'accept' ? MARKDOWN_ONLY : MARKDOWN_TYPES).test(r.contentType)) return ends('not-markdown');
    const text = r.body.toString('utf8').replace(/^\uFEFF/, '');
    return text.trim() === '' ? ends('empty') : ends(`kept-${from}`, text);
  } catch (err) {
    d.log.debug({ url, err: errorMessage(err) }, 'the site markdown could not be fetched');
    return ends('failed');
  }
}
