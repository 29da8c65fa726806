import type { ApiContext } from '../context.js';
import { HttpRefusal } from '../envelope.js';
import { refuseLocalUrl } from '../routes/local-urls.js';
import { firecrawlDocument } from './document.js';
import {
  callerFields,
  type FirecrawlDocument,
  type FirecrawlRoute,
  type FirecrawlVersion,
  scrapeOptionsProperties,
  strictObject,
  urlField,
  wantsOf,
} from './shapes.js';

/** Redirects a scrape follows, as Firecrawl's does. */
const MAX_REDIRECTS = 5;

const isRedirect = (status: number) => status >= 300 && status < 400;

/** What `POST /scrape` takes. */
export interface ScrapeBody {
  url: string;
  formats?: Array<string | { type: string }>;
  onlyMainContent?: boolean;
}

/** `POST /{v1,v2}/scrape`: the route as described. */
export function scrapeRoute(version: FirecrawlVersion): FirecrawlRoute {
  return {
    method: 'POST',
    url: `/${version}/scrape`,
    summary: "One url through the catalog's whole pipeline (test-url's dry run): nothing is stored or published",
    access: 'read',
    body: strictObject({ url: urlField, ...scrapeOptionsProperties, ...callerFields }, ['url']),
  };
}

/**
 * Scrape one url: `test-url`'s dry run (the rules of the catalog whose scope holds it, else of a catalog made for it
 * and not stored), then the page as Firecrawl's document. A url the rules refuse is not fetched: 403 with why. A
 * folder of the server's disk is refused (403), as everywhere in the API.
 */
export async function scrape(ctx: ApiContext, body: ScrapeBody): Promise<{ success: true; data: FirecrawlDocument }> {
  refuseLocalUrl(body.url, 'url');
  const wants = wantsOf(body, 'formats');
  let report = await ctx.gf.testUrl.test({ url: body.url, keepPage: true, textLines: 1_000_000 });
  // Firecrawl answers the page a redirect leads to: its Location goes through the pipeline in turn.
  for (let hop = 0; hop < MAX_REDIRECTS && report.fetch?.location && isRedirect(report.fetch.status); hop++) {
    const next = new URL(report.fetch.location, report.url).href;
    refuseLocalUrl(next, 'url');
    report = await ctx.gf.testUrl.test({ url: next, keepPage: true, textLines: 1_000_000 });
  }
  const page = report.page;
  if (!report.fetch || !page) {
    throw new HttpRefusal(
      403,
      `${report.url} was not fetched: ${report.outcome}${report.why ? ` — ${report.why}` : ''}`,
    );
  }
  const data = firecrawlDocument(
    {
      sourceURL: body.url,
      url: report.url,
      status: report.fetch.status,
      contentType: report.fetch.contentType,
      body: page.body,
      text: report.text.join('\n\n'),
      title: report.title ?? '',
      description: page.description,
      lang: page.lang,
      links: page.links,
      images: page.images,
      extra: {
        catalog: report.catalog.name,
        outcome: report.outcome,
        ...(report.why ? { why: report.why } : {}),
        ...(report.fetch.status >= 400 ? { error: `the site answered ${report.fetch.status}` } : {}),
      },
    },
    wants,
  );
  return { success: true, data };
}
