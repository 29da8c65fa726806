import { CrawlerError } from '@greenfinger/core';
import { pushChangedUrls } from '@greenfinger/core/internal';
import type { FastifyInstance } from 'fastify';
import { type ApiContext, catalogRef } from '../context.js';
import { ok } from '../envelope.js';
import { refParams } from '../schemas.js';

/** Pushed changes (docs/freshness.md#pushed-changes): urls a CMS says changed, fetched by the catalog's next merge. */
export function feedRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { gf } = ctx;
  app.post<{ Params: { ref: string }; Body: { urls: string[] } }>(
    '/v2/catalog/:ref/changed',
    {
      schema: {
        summary:
          "Record urls as changed (a CMS webhook): the catalog's next merge fetches them whatever its change feeds say; urls outside the catalog are refused and listed",
        tags: ['catalogs'],
        params: refParams,
        body: {
          type: 'object',
          required: ['urls'],
          additionalProperties: false,
          properties: {
            urls: {
              type: 'array',
              minItems: 1,
              maxItems: 10_000,
              items: { type: 'string', minLength: 1, maxLength: 2048 },
            },
          },
        },
      },
    },
    async (req) => {
      const catalog = await (await gf.catalogs()).get(catalogRef(req.params.ref));
      // Through the administrative writer: on a cluster the leader, which reads the feeds, records it.
      const pushed = await pushChangedUrls(gf.factory.writer, catalog, req.body.urls);
      if (pushed.recorded.length === 0) {
        const first = pushed.refused[0];
        throw new CrawlerError(
          'BAD_INPUT',
          `urls: none is a url under ${catalog.url} (${first?.url}: ${first?.reason}${pushed.refused.length > 1 ? `, and ${pushed.refused.length - 1} more` : ''})`,
          { fix: `send urls of the catalog "${catalog.name}", each under ${catalog.url}` },
        );
      }
      return ok(
        pushed,
        `${pushed.recorded.length} recorded for the next merge${pushed.refused.length ? `, ${pushed.refused.length} refused` : ''}`,
      );
    },
  );
}
