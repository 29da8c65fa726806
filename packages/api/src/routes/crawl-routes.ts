import type { CatalogRef, CatalogSettings, DeleteLayer, Job, JobAction } from '@greenfinger/core';
import type { FastifyInstance } from 'fastify';
import { type ApiContext, catalogRef } from '../context.js';
import { ok } from '../envelope.js';
import { catalogSettingsJson, refParams } from '../schemas.js';
import { streamJobEvents } from '../sse.js';

const VERBS = ['update', 'merge', 'rebuild', 'resume', 'interrupt', 'replay'] as const;
type Verb = (typeof VERBS)[number];
const LAYERS = ['file', 'index', 'vector'] as const;
const DELETE_LAYERS = ['vector', 'index', 'file', 'db'] as const;

interface VerbBody {
  settings?: Partial<CatalogSettings>;
  forcePublish?: boolean;
  version?: number;
  layers?: Array<(typeof LAYERS)[number]>;
}

const verbBody = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    // No startUrl: where a crawl starts is the catalog's (PUT /v2/catalog/{ref}); a crawl body naming one is refused.
    settings: catalogSettingsJson,
    forcePublish: { type: 'boolean' },
    version: { type: 'integer', minimum: 0 },
    layers: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: LAYERS } },
  },
} as const;

/** What `GET /v2/status/{jobId}` and every 202 describe. */
export function jobView(job: Job) {
  return {
    jobId: job.jobId,
    catalog: job.catalog,
    catalogId: job.catalogId,
    version: job.version,
    action: job.action,
    state: job.state,
    counters: job.counters,
    queued: job.queued,
    active: job.active,
    pagesPerSecond: job.pagesPerSecond,
    hosts: job.hosts ?? [],
    embedding: job.embedding ?? null,
    report: job.report,
    error: job.error,
    startedAt: job.startedAt,
    endedAt: job.endedAt,
  };
}

/** The crawl verbs as background jobs (202 + jobId), their status, reports, versions and the live event stream. */
export function crawlRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { gf } = ctx;
  const tags = ['crawl'];

  const start = async (ref: CatalogRef, action: JobAction, body: VerbBody | null | undefined) => {
    const b = body ?? {};
    const job = await gf.jobs.start({
      ...ref,
      action,
      settings: b.settings,
      forcePublish: b.forcePublish,
      ...(action === 'replay' ? { layers: b.layers ?? ['index', 'vector'], version: b.version } : {}),
    });
    return ok({ jobId: job.jobId, job: jobView(job) }, `${action} started`);
  };

  app.post<{ Params: { ref: string }; Body: VerbBody | null }>(
    '/v2/crawl/:ref',
    {
      schema: {
        summary: 'Crawl the current version (async): 202 with a job id; 409 while a run holds the catalog',
        tags,
        params: refParams,
        body: verbBody,
      },
    },
    async (req, reply) => {
      void reply.status(202);
      return start(catalogRef(req.params.ref), 'crawl', req.body);
    },
  );

  app.post<{ Params: { ref: string; verb: Verb }; Body: VerbBody | null }>(
    '/v2/crawl/:ref/:verb',
    {
      schema: {
        summary: 'update | merge | rebuild | resume | replay (async, 202 with a job id), or interrupt the running job',
        tags,
        params: {
          type: 'object',
          required: ['ref', 'verb'],
          properties: { ref: refParams.properties.ref, verb: { type: 'string', enum: VERBS } },
        },
        body: verbBody,
      },
    },
    async (req, reply) => {
      const ref = catalogRef(req.params.ref);
      void reply.status(202);
      if (req.params.verb === 'interrupt') {
        const job = await gf.jobs.stop(ref);
        return ok({ jobId: job.jobId, job: jobView(job) }, 'interrupted: resume continues it');
      }
      return start(ref, req.params.verb, req.body);
    },
  );

  app.get('/v2/crawl/status', { schema: { summary: 'Every job of this server, newest first', tags } }, async () =>
    ok(gf.jobs.list().map(jobView)),
  );

  app.get<{ Params: { jobId: string } }>(
    '/v2/status/:jobId',
    {
      schema: {
        summary:
          'One job: state queued | running | done | failed | stopped, live counters, and the run report once ended',
        tags,
        params: {
          type: 'object',
          required: ['jobId'],
          properties: { jobId: { type: 'string', minLength: 1, maxLength: 64 } },
        },
      },
    },
    async (req, reply) => {
      const job = gf.jobs.get(req.params.jobId);
      if (!job) {
        void reply.status(404);
        return {
          success: false,
          message: `no job ${req.params.jobId} on this server (jobs are kept until it restarts)`,
          data: null,
        };
      }
      return ok(jobView(job));
    },
  );

  app.get<{ Params: { ref: string } }>(
    '/v2/crawl/:ref/reports',
    { schema: { summary: 'The run report of each version', tags, params: refParams } },
    async (req) => {
      const c = await (await gf.catalogs()).get(catalogRef(req.params.ref));
      return ok(await (await gf.database()).resources.listReports(c.id));
    },
  );

  app.get<{ Params: { ref: string } }>(
    '/v2/crawl/:ref/versions',
    { schema: { summary: 'Each version: state, published, serving, counts', tags, params: refParams } },
    async (req) => ok(await gf.versions.list(catalogRef(req.params.ref))),
  );

  app.delete<{
    Params: { ref: string };
    Querystring: {
      version?: number;
      keepLatest?: number;
      layers?: string;
      dryRun: boolean;
      force?: boolean;
      purge?: boolean;
    };
  }>(
    '/v2/crawl/:ref/versions',
    {
      schema: {
        summary:
          'Delete versions layer by layer (vector → index → file → db). dryRun defaults to true: nothing is deleted without dryRun=false',
        tags,
        params: refParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            version: { type: 'integer', minimum: 0 },
            keepLatest: { type: 'integer', minimum: 1 },
            layers: { type: 'string', pattern: '^(all|(vector|index|file|db)([,+](vector|index|file|db))*)$' },
            dryRun: { type: 'boolean', default: true },
            force: { type: 'boolean', default: false },
            purge: { type: 'boolean', default: false },
          },
        },
      },
    },
    async (req) => {
      const q = req.query;
      const layers = !q.layers || q.layers === 'all' ? [...DELETE_LAYERS] : (q.layers.split(/[,+]/) as DeleteLayer[]);
      const report = await gf.versions.delete(catalogRef(req.params.ref), {
        ...(q.version !== undefined
          ? { version: q.version }
          : q.keepLatest !== undefined
            ? { keepLatest: q.keepLatest }
            : { all: true }),
        layers,
        dryRun: q.dryRun,
        force: q.force === true,
        purge: q.purge === true,
      });
      return ok(report, report.dryRun ? 'dry run: nothing was deleted (send dryRun=false to delete)' : 'deleted');
    },
  );

  app.get<{ Params: { ref: string } }>(
    '/v2/crawl/:ref/events',
    {
      schema: {
        summary: "Server-sent events: the running job's counters every second, then its end",
        tags,
        params: refParams,
      },
    },
    async (req, reply) => {
      const c = await (await gf.catalogs()).get(catalogRef(req.params.ref));
      const header = req.headers.authorization;
      streamJobEvents(req, reply, gf.jobs, c, () => ctx.auth.authenticate(header).then(() => true));
    },
  );
}
