import { readFrontMatter, SEARCH_MODES, type SearchHit, type SearchMode } from '@greenfinger/core/internal';
import type { ApiContext } from '../context.js';
import { HttpRefusal } from '../envelope.js';
import {
  callerFields,
  type FirecrawlRoute,
  type FirecrawlVersion,
  type Format,
  scrapeOptionsProperties,
  strictObject,
  wantsOf,
} from './shapes.js';

/** What `POST /search` takes. */
export interface SearchBody {
  query: string;
  limit?: number;
  sources?: Array<string | { type: string }>;
  includeDomains?: string[];
  excludeDomains?: string[];
  scrapeOptions?: { formats?: Array<string | { type: string }>; onlyMainContent?: boolean };
  mode?: SearchMode;
  catalog?: string;
}

/** One result, as Firecrawl's web results are: with the formats asked for, and where it was found. */
export interface SearchResult {
  url: string;
  title: string;
  description: string;
  position: number;
  markdown?: string;
  metadata: Record<string, unknown>;
}

const domains = { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 253 } } as const;
const ignored = (description: string) => ({ type: 'string', maxLength: 200, description }) as const;

export function searchRoute(version: FirecrawlVersion): FirecrawlRoute {
  const v1 =
    version === 'v1'
      ? {
          lang: ignored('ignored'),
          filter: ignored('ignored'),
          timeout: { type: 'integer', minimum: 1, description: 'ignored' },
        }
      : {
          timeout: { type: 'integer', minimum: 1, description: 'ignored' },
          sources: {
            type: 'array',
            maxItems: 4,
            items: {
              anyOf: [
                { type: 'string', maxLength: 20 },
                strictObject({ type: { type: 'string', maxLength: 20 } }, ['type']),
              ],
            },
            description: 'web only: the collection has no news or images results',
          },
          ignoreInvalidURLs: { type: 'boolean', description: 'ignored' },
        };
  return {
    method: 'POST',
    url: `/${version}/search`,
    summary: 'Search the stored collection (words, meaning or hybrid), not the web',
    access: 'read',
    body: strictObject(
      {
        query: { type: 'string', minLength: 1, maxLength: 1000 },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 5 },
        includeDomains: domains,
        excludeDomains: domains,
        tbs: ignored('ignored: search reads the published versions'),
        location: ignored('ignored'),
        country: ignored('ignored'),
        scrapeOptions: strictObject({ ...scrapeOptionsProperties }),
        mode: { type: 'string', enum: [...SEARCH_MODES], description: "Greenfinger's: words, meaning or hybrid" },
        catalog: {
          type: 'string',
          maxLength: 4000,
          description: "Greenfinger's: catalog ids or names, comma-separated",
        },
        ...v1,
        ...callerFields,
      },
      ['query'],
    ),
  };
}

/**
 * Search the stored collection with the search service (the mode given, else hybrid when the catalogs have vectors,
 * else words), each hit as Firecrawl's web result: url, title, the passage as its description, and with
 * `scrapeOptions.formats` holding markdown, the stored page's Markdown.
 */
export async function search(ctx: ApiContext, body: SearchBody): Promise<SearchResult[]> {
  const sources = (body.sources ?? ['web']).map((s) => (typeof s === 'string' ? s : s.type));
  const other = sources.find((s) => s !== 'web');
  if (other) throw new HttpRefusal(400, `body: sources "${other}" is not searched here: the collection answers web`);
  const wants = wantsOf(body.scrapeOptions, 'scrapeOptions.formats', []);
  const unmade = [...wants.formats].find((f) => f !== 'markdown');
  if (unmade) {
    throw new HttpRefusal(
      400,
      `body: scrapeOptions.formats "${unmade}" is not made for search results: ask for markdown`,
    );
  }
  const limit = body.limit ?? 5;
  const include = body.includeDomains ?? [];
  const exclude = body.excludeDomains ?? [];
  const filtered = include.length > 0 || exclude.length > 0;
  const answer = await ctx.search({
    q: body.query,
    mode: body.mode ?? 'auto',
    catalogs: body.catalog
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    // Domain filters apply to the hits, so more are asked for than kept.
    size: filtered ? Math.min(1000, limit * 10) : limit,
  });
  const hits = answer.results.filter((h) => inDomains(h, include, exclude)).slice(0, limit);
  const results: SearchResult[] = [];
  for (const [i, hit] of hits.entries()) {
    results.push({
      url: hit.url,
      title: hit.title,
      description: hit.highlights.join(' … '),
      position: i + 1,
      ...(await formatted(ctx, hit, wants.formats)),
      metadata: {
        title: hit.title,
        sourceURL: hit.url,
        url: hit.url,
        catalog: hit.catalog,
        version: hit.version,
        resourceId: hit.id,
        score: hit.score,
        mode: answer.mode,
      },
    });
  }
  return results;
}

/** The stored page's Markdown (without its front matter), when asked for. */
async function formatted(ctx: ApiContext, hit: SearchHit, formats: Set<Format>): Promise<{ markdown?: string }> {
  if (!formats.has('markdown')) return {};
  const page = await ctx.gf.pages.markdown({ id: hit.id }).catch(() => undefined);
  if (!page) return {};
  return { markdown: readFrontMatter(page.markdown).body };
}

function inDomains(hit: SearchHit, include: string[], exclude: string[]): boolean {
  const host = new URL(hit.url).hostname;
  const under = (d: string) => host === d || host.endsWith(`.${d}`);
  if (include.length > 0 && !include.some(under)) return false;
  return !exclude.some(under);
}
