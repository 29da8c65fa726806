import {
  type CatalogSettings,
  CrawlerError,
  decodeBody,
  HtmlContentExtractor,
  isMarkupType,
  type Job,
  parseUserUrl,
  type ResourceRow,
} from '@greenfinger/core/internal';
import type { ApiContext } from '../context.js';
import { refuseLocalUrl } from '../routes/local-urls.js';
import { firecrawlDocument } from './document.js';
import {
  callerFields,
  type FirecrawlDocument,
  type FirecrawlRoute,
  type FirecrawlVersion,
  type ScrapeWants,
  scrapeOptionsProperties,
  strictObject,
  unsupported,
  urlField,
  wantsOf,
} from './shapes.js';

/** Pages in one answer of the crawl status; `next` names the rest. */
const PAGE_SIZE = 25;
/** Crawls whose scrape options are remembered (the jobs service keeps the last ended jobs too). */
const REMEMBERED = 200;
/** Pages kept made (a crawl's status is asked for again and again while it runs, and paged through at its end). */
const CACHED_DOCUMENTS = 500;

/** What `POST /crawl` takes (v2 names; v1's `maxDepth` and `ignoreSitemap` are read into them). */
export interface CrawlBody {
  url: string;
  limit?: number;
  maxDiscoveryDepth?: number;
  maxDepth?: number;
  sitemap?: 'include' | 'skip';
  ignoreSitemap?: boolean;
  ignoreRobotsTxt?: boolean;
  delay?: number;
  maxConcurrency?: number;
  webhook?: unknown;
  scrapeOptions?: { formats?: Array<string | { type: string }>; onlyMainContent?: boolean };
}

const jobIdParams = strictObject({ id: { type: 'string', minLength: 1, maxLength: 64 } }, ['id']);

/** The crawl routes of one version, as described. */
export function crawlRoutes(version: FirecrawlVersion): FirecrawlRoute[] {
  const depth =
    version === 'v2'
      ? { maxDiscoveryDepth: { type: 'integer', minimum: 0, maximum: 1000 } }
      : { maxDepth: { type: 'integer', minimum: 0, maximum: 1000 } };
  const sitemap =
    version === 'v2'
      ? { sitemap: { type: 'string', enum: ['include', 'skip'], description: '"only" is not supported' } }
      : { ignoreSitemap: { type: 'boolean' } };
  return [
    {
      method: 'POST',
      url: `/${version}/crawl`,
      summary: 'Crawl a site into a catalog of its own (firecrawl-<host><path>) as a job: its id',
      access: 'write',
      body: strictObject(
        {
          url: urlField,
          limit: { type: 'integer', minimum: 1, maximum: 10_000_000, description: "the catalog's maxPages" },
          ...depth,
          ...sitemap,
          ignoreRobotsTxt: { type: 'boolean' },
          delay: { type: 'number', minimum: 0, maximum: 3600, description: 'seconds between two requests to a host' },
          maxConcurrency: { type: 'integer', minimum: 1, maximum: 512 },
          webhook: { description: 'refused: no webhooks are sent' },
          scrapeOptions: strictObject({ ...scrapeOptionsProperties }),
          ...callerFields,
        },
        ['url'],
      ),
    },
    {
      method: 'GET',
      url: `/${version}/crawl/:id`,
      summary: 'A crawl job: its status, totals and pages (skip/limit; `next` names the rest)',
      access: 'read',
      params: jobIdParams,
      querystring: strictObject({
        skip: { type: 'integer', minimum: 0, maximum: 10_000_000, default: 0 },
        limit: { type: 'integer', minimum: 1, maximum: 1000, default: PAGE_SIZE },
      }),
    },
    {
      method: 'DELETE',
      url: `/${version}/crawl/:id`,
      summary: 'Stop a crawl job (in-flight pages finish, nothing is published)',
      access: 'write',
      params: jobIdParams,
    },
  ];
}

/** The name of the catalog Firecrawl crawls of a url land in: `firecrawl-` and its host and path. */
export function catalogNameFor(url: string): string {
  const u = new URL(url);
  const rest = `${u.host}${u.pathname}`.replace(/[^\p{L}\p{N}._:-]+/gu, '-').replace(/-+$/, '');
  return `firecrawl-${rest}`.slice(0, 100);
}

/**
 * Firecrawl's crawls as Greenfinger jobs: each crawl runs in the catalog named for its url (made on the first crawl,
 * with the file and index layers), with the limits given; its pages are the saved pages of the version it writes.
 */
export class FirecrawlCrawls {
  readonly #ctx: ApiContext;
  readonly #wants = new Map<string, ScrapeWants>();
  readonly #extractor = new HtmlContentExtractor();
  /** Documents made, by job and resource id: a saved page of a version does not change. */
  readonly #documents = new Map<string, FirecrawlDocument>();

  constructor(ctx: ApiContext) {
    this.#ctx = ctx;
  }

  async start(body: CrawlBody): Promise<Job> {
    refuseLocalUrl(body.url, 'url');
    if (body.webhook !== undefined) throw unsupported('webhook', 'poll GET /crawl/{id} instead');
    const wants = wantsOf(body.scrapeOptions, 'scrapeOptions.formats');
    const url = parseUserUrl(body.url, 'url');
    const name = catalogNameFor(url);
    const catalogs = await this.#ctx.gf.catalogs();
    const known = await catalogs.find({ name });
    // Each request is whole, as Firecrawl's are: what it leaves out takes the default, not the last crawl's value.
    const settings: Partial<CatalogSettings> = {
      maxPages: body.limit ?? 10_000,
      depth: body.maxDiscoveryDepth ?? body.maxDepth ?? -1,
      sitemap: body.sitemap ? body.sitemap !== 'skip' : !body.ignoreSitemap,
      robots: !body.ignoreRobotsTxt,
      ...(body.delay !== undefined ? { intervalMs: Math.round(body.delay * 1000) } : {}),
      ...(body.maxConcurrency !== undefined ? { threads: body.maxConcurrency } : {}),
      ...(known ? {} : { outputs: ['file', 'index'] as CatalogSettings['outputs'] }),
    };
    // A crawl into a catalog that exists writes a new version (rebuild): its pages are the ones this crawl saved.
    const action = known ? 'rebuild' : 'crawl';
    const job = await this.#ctx.gf.jobs.start({ url, name, action, settings });
    this.#wants.set(job.jobId, wants);
    while (this.#wants.size > REMEMBERED) this.#wants.delete(this.#wants.keys().next().value as string);
    return job;
  }

  /** The job, or a 404. */
  job(id: string): Job {
    const job = this.#ctx.gf.jobs.get(id);
    if (!job || job.action === 'replay') {
      throw new CrawlerError('NOT_FOUND', `no crawl job ${id}`, {
        fix: 'start one with POST /crawl (jobs are kept in memory: a restarted server forgets them)',
      });
    }
    return job;
  }

  async stop(id: string): Promise<{ success: true; status: 'cancelled' }> {
    const job = this.job(id);
    if (!job.endedAt) await this.#ctx.gf.jobs.stop({ jobId: id });
    return { success: true, status: 'cancelled' };
  }

  /** Firecrawl's status answer: `next` (an absolute url) only while more pages remain. */
  async status(id: string, skip: number, limit: number, base: string): Promise<Record<string, unknown>> {
    const job = this.job(id);
    const db = await this.#ctx.gf.database();
    const ids = job.version === null ? [] : (await db.resources.listResourceIds(job.catalogId, job.version)).sort();
    const slice = ids.slice(skip, skip + limit);
    const rows = slice.length ? await db.resources.resourcesByIds(job.catalogId, job.version ?? 0, slice) : [];
    const order = new Map(slice.map((x, i) => [x, i]));
    rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
    const wants = this.#wants.get(id) ?? { formats: new Set(['markdown'] as const), onlyMainContent: true };
    const data: FirecrawlDocument[] = [];
    for (const row of rows) {
      const key = `${id}/${row.id}`;
      const doc = this.#documents.get(key) ?? (await this.#document(row, job.catalog, wants));
      this.#documents.delete(key);
      this.#documents.set(key, doc);
      data.push(doc);
    }
    while (this.#documents.size > CACHED_DOCUMENTS)
      this.#documents.delete(this.#documents.keys().next().value as string);
    const ended = job.endedAt !== null;
    const completed = ids.length;
    const total = ended ? completed : completed + job.queued + job.active;
    return {
      success: true,
      status: statusOf(job),
      completed,
      total,
      creditsUsed: completed,
      ...(skip + limit < ids.length ? { next: `${base}/crawl/${id}?skip=${skip + limit}&limit=${limit}` } : {}),
      data,
      ...(job.error ? { error: job.error.message } : {}),
    };
  }

  async #document(row: ResourceRow, catalog: string, wants: ScrapeWants): Promise<FirecrawlDocument> {
    const blobs = this.#ctx.gf.factory.blobs;
    const markup = isMarkupType(row.contentType);
    const bytes = markup ? await blobs.get(row.htmlPath) : undefined;
    const body = bytes ? decodeBody(bytes, row.contentType).text : '';
    const content = body ? this.#extractor.extract(body, row.url) : undefined;
    const text = (await blobs.getText(row.textPath)) ?? '';
    return firecrawlDocument(
      {
        sourceURL: row.url,
        url: row.url,
        status: row.status,
        contentType: row.contentType,
        body,
        text,
        title: row.title,
        description: content?.description ?? '',
        lang: content?.lang ?? '',
        links: content ? [...new Set(content.links.map((l) => l.url))] : [],
        images: content ? [...new Set(content.images.map((i) => i.url))] : [],
        extra: { catalog, version: row.version, resourceId: row.id, fetchedAt: row.fetchedAt },
      },
      wants,
    );
  }
}

/** Firecrawl's job states: scraping, completed, failed, cancelled. */
function statusOf(job: Job): 'scraping' | 'completed' | 'failed' | 'cancelled' {
  if (job.state === 'done') return 'completed';
  if (job.state === 'stopped') return 'cancelled';
  if (job.state === 'failed') return 'failed';
  return 'scraping';
}
