import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_VERSION } from '../api-version.js';
import type { ApiContext } from '../context.js';
import { type CrawlBody, crawlRoutes, FirecrawlCrawls } from './crawl.js';
import { type MapBody, map, mapRoute } from './map.js';
import { type ScrapeBody, scrape, scrapeRoute } from './scrape.js';
import { type SearchBody, search, searchRoute } from './search.js';
import { describeFirecrawl, type FirecrawlRoute, type FirecrawlVersion } from './shapes.js';

/** Where Firecrawl's API is mounted: the SDK's `apiUrl` is `http://host:port/firecrawl`. */
export const FIRECRAWL_PREFIX = '/firecrawl';

type Handler = (req: FastifyRequest, base: string) => Promise<unknown>;

/**
 * A failure answers in Greenfinger's envelope with Firecrawl's `error` beside its `message`: Firecrawl's clients read
 * `error`.
 */
async function withFirecrawlError(_req: FastifyRequest, _reply: FastifyReply, payload: unknown): Promise<unknown> {
  const p = payload as { success?: unknown; message?: unknown } | null;
  return p && p.success === false && typeof p.message === 'string' ? { ...p, error: p.message } : payload;
}

/** The routes of one version with what answers each. */
function versionRoutes(version: FirecrawlVersion, ctx: ApiContext, crawls: FirecrawlCrawls) {
  const [start, status, stop] = crawlRoutes(version) as [FirecrawlRoute, FirecrawlRoute, FirecrawlRoute];
  const table: Array<[FirecrawlRoute, Handler]> = [
    [scrapeRoute(version), (req) => scrape(ctx, req.body as ScrapeBody)],
    [
      start,
      async (req, base) => {
        const job = await crawls.start(req.body as CrawlBody);
        return { success: true, id: job.jobId, url: `${base}/crawl/${job.jobId}` };
      },
    ],
    [
      status,
      (req, base) => {
        const q = req.query as { skip: number; limit: number };
        return crawls.status((req.params as { id: string }).id, q.skip, q.limit, base);
      },
    ],
    [stop, (req) => crawls.stop((req.params as { id: string }).id)],
    [
      mapRoute(version),
      async (req) => {
        const links = await map(ctx, req.body as MapBody);
        return { success: true, links: version === 'v1' ? links.map((l) => l.url) : links };
      },
    ],
    [
      searchRoute(version),
      async (req) => {
        const results = await search(ctx, req.body as SearchBody);
        return { success: true, data: version === 'v1' ? results : { web: results } };
      },
    ],
  ];
  return table;
}

/**
 * Firecrawl's REST API as its official JavaScript SDK calls it (v2, and v1 for `FirecrawlAppV1`), answered from and
 * into the stored collection: scrape (a dry run, nothing stored), crawl as a job into a catalog, map from the url
 * ledger, search of the collection. Described at `GET /firecrawl/openapi.json`, not in `/v2/openapi.json`. Access:
 * scrape, map, search and a crawl's status for any signed-in role; starting and stopping a crawl for an admin.
 */
export function firecrawlRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const crawls = new FirecrawlCrawls(ctx);
  const described: FirecrawlRoute[] = [];
  for (const version of ['v2', 'v1'] as const) {
    for (const [route, handle] of versionRoutes(version, ctx, crawls)) {
      described.push(route);
      app.route({
        method: route.method,
        url: `${FIRECRAWL_PREFIX}${route.url}`,
        config: { access: route.access },
        schema: {
          hide: true,
          ...(route.body ? { body: route.body } : {}),
          ...(route.params ? { params: route.params } : {}),
          ...(route.querystring ? { querystring: route.querystring } : {}),
        },
        preSerialization: withFirecrawlError,
        handler: (req) => handle(req, `${req.protocol}://${req.host}${FIRECRAWL_PREFIX}/${version}`),
      });
    }
  }
  const description = describeFirecrawl(FIRECRAWL_PREFIX, described, API_VERSION);
  app.get(
    `${FIRECRAWL_PREFIX}/openapi.json`,
    { config: { access: 'open' }, schema: { hide: true } },
    async () => description,
  );
}
