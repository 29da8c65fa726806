import { type Greenfinger, reportOf } from '@greenfinger/core';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';

export const API_VERSION = '0.1.0';

/** The envelope every answer uses. */
function ok<T>(data: T) {
  return { success: true, message: 'ok', data };
}

/**
 * The REST front end: a thin layer over the same core services the CLI drives. Search answers from the
 * index and the vectors only; catalog listings read the database.
 */
export function buildApp(gf: Greenfinger): FastifyInstance {
  const app = Fastify({ loggerInstance: gf.log as FastifyBaseLogger });
  // Status by core's error table: a CrawlerError by its code, a framework error (validation) by its statusCode.
  app.setErrorHandler((err, _req, reply) => {
    const report = reportOf(err);
    void reply.status(report.http).send({ success: false, message: report.line, data: null });
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.status(404).send({ success: false, message: `no endpoint ${req.method} ${req.url}`, data: null });
  });

  app.get('/v2/version', async () => ok({ version: API_VERSION }));

  app.get<{ Querystring: { q?: string; mode?: string; catalog?: string; size?: string; cursor?: string } }>(
    '/v2/search',
    {
      schema: {
        querystring: {
          type: 'object',
          required: ['q'],
          properties: {
            q: { type: 'string', minLength: 1 },
            mode: { type: 'string', enum: ['words', 'meaning'] },
            catalog: { type: 'string' },
            size: { type: 'string', pattern: '^[0-9]+$' },
            cursor: { type: 'string' },
          },
        },
      },
    },
    async (req) => {
      const { q, mode, catalog, size, cursor } = req.query;
      const r = await gf.search.search({
        q: q as string,
        mode: mode === 'meaning' ? 'meaning' : 'words',
        catalogs: catalog ? catalog.split(',') : undefined,
        size: size ? Number(size) : 10,
        cursor,
      });
      return ok(r);
    },
  );

  app.get('/v2/catalog', async () => {
    const catalogs = await gf.catalogs();
    return ok(await catalogs.list());
  });

  app.get<{ Params: { ref: string } }>('/v2/catalog/:ref', async (req) => {
    const catalogs = await gf.catalogs();
    const ref = req.params.ref;
    const byId = /^[0-9a-f-]{36}$/.test(ref);
    return ok(await catalogs.get(byId ? { id: ref } : { name: ref }));
  });

  return app;
}
