import { errorMessage } from '../../errors.js';
import { NEXT, type PageInProgress, type PipelineContext, type Stage } from '../page.js';
import { politeFetch } from '../polite-fetch.js';

/** The most of a site's Markdown kept for one page. */
export const SITE_MARKDOWN_MAX_BYTES = 5 * 1024 * 1024;

/** Answers taken for Markdown: the type a site gives it, or plain text (many servers know no `.md` type). */
const MARKDOWN_TYPES = /^(?:text\/(?:x-)?markdown|text\/plain)\b/i;

/**
 * The site's own Markdown of a page (issue 28): a page that names it (`<link rel="alternate" type="text/markdown"
 * href>`, on its own host) has it fetched — one more request, under the host's politeness and robots.txt — and kept as
 * the page's `.md` (front matter `source: site`) instead of a conversion made from its html. A Markdown that does not
 * answer 200 with a Markdown or text type, is empty or over 5 MB is left: the page is saved as any other, and its
 * Markdown made from its html when it is read. What happened is noted in the run report (`site-markdown:*`).
 */
export const siteMarkdown: Stage = {
  name: 'site-markdown',
  run: async (page, ctx) => {
    const url = page.content?.markdownUrl;
    if (!url || page.document) return NEXT;
    page.siteMarkdown = await ctx.clock.time('fetch', fetchSiteMarkdown(page, url, ctx));
    return NEXT;
  },
};

async function fetchSiteMarkdown(page: PageInProgress, url: string, ctx: PipelineContext): Promise<string | undefined> {
  const { deps: d, counters } = ctx;
  /** Notes what became of it in the run report, and answers the Markdown when it is kept. */
  const ends = (what: string, text?: string): string | undefined => {
    counters.note(`site-markdown:${what}`, page.entry.url);
    return text;
  };
  if (new URL(url).host !== new URL(page.entry.url).host) return ends('other-host');
  if (d.robots && !(await d.robots.isAllowed(url))) return ends('robots-txt');
  try {
    const r = await politeFetch(d.politeness, d.imageFetcher, url, { binary: true, maxBytes: SITE_MARKDOWN_MAX_BYTES });
    if (r.status !== 200) return ends(`status-${r.status}`);
    if (!MARKDOWN_TYPES.test(r.contentType)) return ends('not-markdown');
    const text = r.body.toString('utf8').replace(/^\uFEFF/, '');
    return text.trim() === '' ? ends('empty') : ends('kept', text);
  } catch (err) {
    d.log.debug({ url, err: errorMessage(err) }, 'the site markdown could not be fetched');
    return ends('failed');
  }
}
