import {
  CATALOG_CATS,
  type Catalog,
  type CatalogRef,
  type CatalogSettings,
  CrawlerError,
  defaultCatalogSettings,
} from '@greenfinger/core';
import type { FastifyInstance } from 'fastify';
import { type ApiContext, catalogRef } from '../context.js';
import { ok } from '../envelope.js';
import { catalogBody, refParams } from '../schemas.js';
import { refuseLocalUrl } from './local-urls.js';

interface CatalogBody {
  name?: string;
  url?: string;
  startUrl?: string;
  settings?: Partial<CatalogSettings>;
}

/** Catalog definitions: list, categories, running, one (as stored, with defaults), its counters, create or update, delete. */
export function catalogRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { gf } = ctx;
  const tags = ['catalogs'];

  app.get('/v2/catalog', { schema: { summary: 'Every catalog', tags } }, async () =>
    ok(await (await gf.catalogs()).list()),
  );

  app.get(
    '/v2/catalog/cats',
    { schema: { summary: 'The categories, with how many catalogs each holds', tags } },
    async () => {
      const all = await (await gf.catalogs()).list();
      return ok(
        CATALOG_CATS.map((cat) => ({ cat, catalogs: all.filter((c) => (c.settings.cat ?? 'other') === cat).length })),
      );
    },
  );

  app.get('/v2/catalog/running', { schema: { summary: 'Catalogs crawling now, with their jobs', tags } }, async () => {
    const runs = await gf.crawler.status();
    return ok(runs.map((r) => ({ ...r, job: gf.jobs.running(r.catalogId)?.jobId ?? null })));
  });

  app.get(
    '/v2/catalog/schedules',
    {
      schema: {
        summary:
          'Catalogs with a schedule (--schedule): when each last ran, when it runs next, what its last run changed',
        tags,
      },
    },
    async () => ok(await gf.schedules.list(undefined, { changes: true })),
  );

  app.get<{ Params: { ref: string } }>(
    '/v2/catalog/:ref',
    { schema: { summary: 'One catalog, by id or name, as `catalog show --json` prints it', tags, params: refParams } },
    async (req) => ok(await (await gf.catalogs()).get(catalogRef(req.params.ref))),
  );

  app.get<{ Params: { ref: string } }>(
    '/v2/catalog/:ref/details',
    { schema: { summary: 'One catalog with every setting, defaults applied', tags, params: refParams } },
    async (req) => ok(withDefaults(await (await gf.catalogs()).get(catalogRef(req.params.ref)))),
  );

  app.get<{ Params: { ref: string } }>(
    '/v2/catalog/:ref/summary',
    { schema: { summary: 'Live counters of its running job, else those of its last run', tags, params: refParams } },
    async (req) => {
      const c = await (await gf.catalogs()).get(catalogRef(req.params.ref));
      const job = gf.jobs.running(c.id);
      if (job)
        return ok({
          catalogId: c.id,
          catalog: c.name,
          live: true,
          version: job.version,
          action: job.action,
          counters: job.counters,
          queued: job.queued,
          pagesPerSecond: job.pagesPerSecond,
        });
      const last = await (await gf.database()).resources.getReport(c.id, c.indexVersion);
      return ok({
        catalogId: c.id,
        catalog: c.name,
        live: false,
        version: last?.version ?? null,
        action: last?.action ?? null,
        counters: last?.report.urls ?? null,
        produced: last?.report.produced ?? null,
        ending: last?.report.ending ?? null,
      });
    },
  );

  app.post<{ Body: CatalogBody }>(
    '/v2/catalog',
    {
      schema: {
        summary:
          'Create a catalog, or update the one with this name (else url): partial settings merge with what is stored',
        tags,
        body: catalogBody,
      },
    },
    async (req, reply) => {
      const catalogs = await gf.catalogs();
      const { name, url, startUrl, settings } = req.body;
      refuseLocalUrl(url, 'url');
      refuseLocalUrl(startUrl, 'startUrl');
      const existing = name ? await catalogs.find({ name }) : url ? await catalogs.find({ url }) : undefined;
      if (existing) return ok(await catalogs.update(existing.id, { url, startUrl, name, settings }), 'updated');
      if (!url) {
        void reply.status(400);
        return {
          success: false,
          message: `body: "url" is required to create a catalog${name ? ` (no catalog is named "${name}")` : ''}`,
          data: null,
        };
      }
      void reply.status(201);
      return ok(await catalogs.create({ url, startUrl, name, settings }), 'created');
    },
  );

  app.put<{ Params: { ref: string }; Body: CatalogBody }>(
    '/v2/catalog/:ref',
    {
      schema: {
        summary: 'Update one catalog: partial settings merge with what is stored',
        tags,
        params: refParams,
        body: catalogBody,
      },
    },
    async (req) => {
      const catalogs = await gf.catalogs();
      const c = await catalogs.get(catalogRef(req.params.ref));
      const { name, url, startUrl, settings } = req.body;
      refuseLocalUrl(url, 'url');
      refuseLocalUrl(startUrl, 'startUrl');
      return ok(await catalogs.update(c.id, { url, startUrl, name, settings }), 'updated');
    },
  );

  app.delete<{ Params: { ref: string }; Querystring: { purge?: boolean; dryRun: boolean } }>(
    '/v2/catalog/:ref',
    {
      schema: {
        summary:
          'Delete a catalog definition (stops its crawl); refused while it holds versions unless purge=true. dryRun defaults to true: the answer says what would go, and nothing is deleted without dryRun=false',
        tags,
        params: refParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { purge: { type: 'boolean', default: false }, dryRun: { type: 'boolean', default: true } },
        },
      },
    },
    async (req) => {
      const ref = catalogRef(req.params.ref);
      const purge = req.query.purge === true;
      if (req.query.dryRun) return ok(await previewCatalogDeletion(ctx, ref, purge), DRY_RUN_LINE);
      return ok({ dryRun: false, ...(await gf.deleteCatalog(ref, { purge })) }, 'deleted');
    },
  );
}

const DRY_RUN_LINE = 'dry run: nothing was deleted (send dryRun=false to delete)';

/**
 * What deleting a catalog would remove, without touching anything (nor stopping its crawl): the definition, and with
 * `purge` the dry-run walk over every version (pages, bytes per layer). Without `purge`, a catalog holding versions
 * is refused just as the deletion would be.
 */
async function previewCatalogDeletion(ctx: ApiContext, ref: CatalogRef, purge: boolean) {
  const { gf } = ctx;
  const c = await (await gf.catalogs()).get(ref);
  const versions = await gf.versions.existing(c);
  if (!purge && versions.length > 0) {
    throw new CrawlerError('CONFLICT', `catalog "${c.name}" still holds versions ${versions.join(', ')}`, {
      fix: 'add purge=true to delete them with it (preview it first: it is a dry run unless dryRun=false)',
    });
  }
  const report = purge
    ? await gf.versions.delete({ id: c.id }, { all: true, force: true, purge: true, dryRun: true })
    : null;
  return {
    dryRun: true,
    deleted: c,
    running: gf.jobs.running(c.id) !== undefined,
    purge: report,
  };
}

function withDefaults(c: Catalog): Catalog {
  return { ...c, settings: { ...defaultCatalogSettings, ...c.settings } };
}
