import { ALERT_MODES, type AlertMode } from '@greenfinger/core/internal';
import type { FastifyInstance } from 'fastify';
import { type ApiContext, catalogRef } from '../context.js';
import { ok } from '../envelope.js';
import { refParams } from '../schemas.js';

interface AlertBody {
  query: string;
  mode?: AlertMode;
  name?: string;
}

/**
 * Alerts (docs/freshness.md#alerts): a catalog's saved searches with their last firing and the last delivery to each
 * of its webhooks; add and remove saved searches (admin, as every write).
 */
export function alertRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { gf } = ctx;
  const tags = ['catalogs'];

  app.get<{ Params: { ref: string } }>(
    '/v2/catalog/:ref/alerts',
    {
      schema: {
        summary:
          "A catalog's saved searches (with when each last fired and what it matched) and its webhooks with the last delivery to each",
        tags,
        params: refParams,
      },
    },
    async (req) => ok(await gf.alerts.list(catalogRef(req.params.ref))),
  );

  app.post<{ Params: { ref: string }; Body: AlertBody }>(
    '/v2/catalog/:ref/alerts',
    {
      schema: {
        summary: 'Save a search: it fires when a page a publishing run adds or changes matches it',
        tags,
        params: refParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['query'],
          properties: {
            query: {
              type: 'string',
              minLength: 1,
              maxLength: 1000,
              description: 'the words (or question) to watch for',
            },
            mode: { type: 'string', enum: [...ALERT_MODES], description: 'words (default), meaning or hybrid' },
            name: {
              type: 'string',
              minLength: 1,
              maxLength: 200,
              description: 'unique in the catalog (default: the query)',
            },
          },
        },
      },
    },
    async (req, reply) => {
      const row = await gf.alerts.add(catalogRef(req.params.ref), req.body);
      void reply.status(201);
      return ok(row, 'created');
    },
  );

  app.delete<{ Params: { ref: string; alert: string } }>(
    '/v2/catalog/:ref/alerts/:alert',
    {
      schema: {
        summary: 'Remove a saved search, by its id (or its name)',
        tags,
        params: {
          type: 'object',
          required: ['ref', 'alert'],
          properties: {
            ...refParams.properties,
            alert: { type: 'string', minLength: 1, maxLength: 200 },
          },
        },
      },
    },
    async (req) => ok(await gf.alerts.remove(catalogRef(req.params.ref), req.params.alert), 'deleted'),
  );
}
