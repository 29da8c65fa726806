import { type CatalogRef, CrawlerError, type Greenfinger, type LedgerRow, type LedgerState } from '@greenfinger/core';
import type { FastifyInstance } from 'fastify';
import { type ApiContext, catalogRef } from '../context.js';
import { ok } from '../envelope.js';
import { idParams, ledgerStates, paging } from '../schemas.js';
import { jobView } from './crawl-routes.js';
import { refuseLocalUrl } from './local-urls.js';

const urlList = {
  type: 'array',
  minItems: 1,
  maxItems: 10_000,
  items: { type: 'string', minLength: 1, maxLength: 2048 },
} as const;
const catalogField = { type: 'string', minLength: 1, maxLength: 200, description: 'catalog id or name' } as const;

/** A ledger row as seed 003's urls endpoints answer it. */
export function urlView(row: LedgerRow) {
  return {
    urlId: row.id,
    url: row.url,
    state: row.state,
    outcome: row.outcome,
    detail: row.detail,
    status: row.status,
    reason: row.reason,
    referrer: row.referrer,
    depth: row.depth,
    redirects: row.redirects,
    foundAs: row.foundAs,
    priority: row.priority ?? null,
    fetchedAt: row.fetchedAt,
    changedAt: row.changedAt ?? null,
    changeCount: row.changeCount ?? 0,
    catalogId: row.catalogId,
    version: row.version,
  };
}

/** The catalog a request names, or the only one there is. */
async function namedOrOnly(gf: Greenfinger, ref: string | undefined): Promise<CatalogRef> {
  if (ref) return catalogRef(ref);
  const all = await (await gf.catalogs()).list();
  if (all.length === 1 && all[0]) return { id: all[0].id };
  throw new CrawlerError('BAD_INPUT', `name the catalog: ${all.length} catalogs exist`, {
    fix: `add catalog=<id or name>${
      all.length
        ? ` (${all
            .slice(0, 5)
            .map((c) => c.name)
            .join(', ')})`
        : ''
    }`,
  });
}

/** Seed 003's jobs-and-urls surface: start, stop, seeds, limits, and the url ledger. */
export function jobRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { gf } = ctx;
  const tags = ['jobs and urls'];

  app.post<{ Body: { crawlPage: string; maxDepth?: number; name?: string } }>(
    '/v2/crawl/start',
    {
      schema: {
        summary: 'Create or reuse the catalog for this page and crawl it: 202 with a job id',
        tags,
        body: {
          type: 'object',
          required: ['crawlPage'],
          additionalProperties: false,
          properties: {
            crawlPage: { type: 'string', minLength: 1, maxLength: 2048 },
            maxDepth: { type: 'integer', minimum: -1, maximum: 1000 },
            name: catalogField,
          },
        },
      },
    },
    async (req, reply) => {
      const b = req.body;
      refuseLocalUrl(b.crawlPage, 'crawlPage');
      const job = await gf.jobs.start({
        url: b.crawlPage,
        name: b.name,
        action: 'crawl',
        settings: b.maxDepth !== undefined ? { depth: b.maxDepth } : undefined,
      });
      void reply.status(202);
      return ok({ jobId: job.jobId, job: jobView(job) }, 'crawl started');
    },
  );

  app.post<{ Body: { catalog?: string; jobId?: string } | null }>(
    '/v2/crawl/stop',
    {
      schema: {
        summary:
          'Stop a job gracefully: no new fetches, in-flight pages finish, nothing is published; resume continues it',
        tags,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: { catalog: catalogField, jobId: { type: 'string', maxLength: 64 } },
        },
      },
    },
    async (req, reply) => {
      const b = req.body ?? {};
      let target: CatalogRef | { jobId: string };
      if (b.jobId) target = { jobId: b.jobId };
      else if (b.catalog) target = catalogRef(b.catalog);
      else {
        const running = gf.jobs.list().filter((j) => j.state === 'running' || j.state === 'queued');
        if (running.length !== 1 || !running[0]) {
          throw new CrawlerError('BAD_INPUT', `name the job to stop: ${running.length} jobs run now`, {
            fix: 'send {"jobId": …} or {"catalog": …}',
          });
        }
        target = { jobId: running[0].jobId };
      }
      const job = await gf.jobs.stop(target);
      void reply.status(202);
      return ok({ jobId: job.jobId, job: jobView(job) }, 'stopped: resume continues it');
    },
  );

  app.post<{ Body: { catalog: string; urls: string[] } }>(
    '/v2/seed/urls',
    {
      schema: {
        summary: "Add start references: to the running job now, or to the catalog's next run",
        tags,
        body: {
          type: 'object',
          required: ['catalog', 'urls'],
          additionalProperties: false,
          properties: { catalog: catalogField, urls: urlList },
        },
      },
    },
    async (req) => ok(await gf.jobs.addSeeds(catalogRef(req.body.catalog), req.body.urls)),
  );

  app.post<{ Body: { catalog: string; depthLimit: number } }>(
    '/v2/limits',
    {
      schema: {
        summary: 'Set the depth limit of a catalog (-1 = none); a running job uses it at once',
        tags,
        body: {
          type: 'object',
          required: ['catalog', 'depthLimit'],
          additionalProperties: false,
          properties: { catalog: catalogField, depthLimit: { type: 'integer', minimum: -1, maximum: 1000 } },
        },
      },
    },
    async (req) => ok(await gf.jobs.setDepthLimit(catalogRef(req.body.catalog), req.body.depthLimit)),
  );

  app.get<{
    Querystring: {
      status?: LedgerState;
      outcome?: string;
      q?: string;
      catalog?: string;
      version?: number;
      limit: number;
      offset: number;
    };
  }>(
    '/v2/urls',
    {
      schema: {
        summary: 'The url ledger of a version: every url dispatched, its state and why it ended as it did',
        tags,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: ledgerStates },
            outcome: { type: 'string', pattern: '^[A-Z_]{1,40}$' },
            q: { type: 'string', maxLength: 2000, description: 'a part of the url' },
            catalog: catalogField,
            version: { type: 'integer', minimum: 0 },
            ...paging,
          },
        },
      },
    },
    async (req) => {
      const q = req.query;
      const listed = await gf.ledger.list({
        catalog: await namedOrOnly(gf, q.catalog),
        version: q.version,
        state: q.status,
        outcome: q.outcome,
        text: q.q,
        limit: q.limit,
        offset: q.offset,
      });
      return ok({
        catalog: listed.catalog,
        version: listed.version,
        items: listed.items.map(urlView),
        total: listed.total,
      });
    },
  );

  app.get<{ Querystring: { url: string; catalog?: string; version?: number } }>(
    '/v2/urls/why',
    {
      schema: {
        summary: 'Why a url ended as it did (or was never dispatched), in one sentence and the ledger row',
        tags,
        querystring: {
          type: 'object',
          required: ['url'],
          additionalProperties: false,
          properties: {
            url: { type: 'string', minLength: 1, maxLength: 4096 },
            catalog: catalogField,
            version: { type: 'integer', minimum: 0 },
          },
        },
      },
    },
    async (req) => {
      const fate = await gf.ledger.why(req.query.url, {
        ...(req.query.catalog ? { catalog: catalogRef(req.query.catalog) } : {}),
        ...(req.query.version !== undefined ? { version: req.query.version } : {}),
      });
      return ok({ ...fate, row: fate.row ? urlView(fate.row) : null });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v2/urls/:id',
    { schema: { summary: 'One url of the ledger by its id (the resource id)', tags, params: idParams } },
    async (req) => {
      const row = await gf.ledger.get(req.params.id);
      const fate = await gf.ledger.why(row.url, { catalog: { id: row.catalogId }, version: row.version });
      return ok({ ...urlView(row), explanation: fate.explanation });
    },
  );

  app.delete<{ Params: { id: string }; Querystring: { dryRun: boolean } }>(
    '/v2/urls/:id',
    {
      schema: {
        summary:
          "Remove this url's page from every layer (vector, index, file, db); it is not queued again in this version. dryRun defaults to true: nothing is deleted without dryRun=false",
        tags,
        params: idParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { dryRun: { type: 'boolean', default: true } },
        },
      },
    },
    async (req) => {
      const r = await gf.ledger.deleteUrl(req.params.id, { dryRun: req.query.dryRun });
      return ok(r, req.query.dryRun ? 'dry run: nothing was deleted (send dryRun=false to delete)' : 'deleted');
    },
  );
}
