import { PassThrough } from 'node:stream';
import { EXPORT_FORMATS, EXPORT_MEDIA_TYPES, type ExportFormat, ExportService } from '@greenfinger/core/internal';
import type { FastifyInstance } from 'fastify';
import { type ApiContext, catalogRef } from '../context.js';
import { refParams } from '../schemas.js';

interface ExportQuery {
  format: ExportFormat;
  version?: number;
  chunks?: boolean;
}

/**
 * `GET /v2/catalog/{ref}/export?format=`: a stored version streamed as the CLI's `export` writes it (jsonl, warc,
 * wacz; markdown as a zip of its tree). Read access. The request is checked before the first byte (a bad format
 * is a 400 naming it, an unknown catalog or version a 404); a failure after that cuts the connection, so a client
 * never takes a truncated export for a whole one.
 */
export function exportRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const exports = new ExportService(ctx.gf);
  app.get<{ Params: { ref: string }; Querystring: ExportQuery }>(
    '/v2/catalog/:ref/export',
    {
      config: { access: 'read' },
      schema: {
        summary: 'A stored version as JSON lines, a WARC, a WACZ, or a zip of Markdown files (docs/export.md)',
        tags: ['catalogs'],
        params: refParams,
        querystring: {
          type: 'object',
          required: ['format'],
          additionalProperties: false,
          properties: {
            format: { type: 'string', enum: [...EXPORT_FORMATS], description: 'jsonl, markdown (a zip), warc, wacz' },
            version: {
              type: 'integer',
              minimum: 0,
              description: 'the version (default: the one search reads, else the one being written)',
            },
            chunks: { type: 'boolean', description: 'jsonl: each page’s embedded chunks with their vectors' },
          },
        },
      },
    },
    async (req, reply) => {
      const { format, version, chunks } = req.query;
      const plan = await exports.plan({ catalog: catalogRef(req.params.ref), format, version, chunks });
      const body = new PassThrough();
      void exports.write(plan, body).then(
        () => body.end(),
        (err: unknown) => {
          req.log.warn({ err, catalog: plan.source.catalog.id, format }, 'export cut short');
          body.destroy(err instanceof Error ? err : new Error(String(err)));
        },
      );
      return reply
        .type(EXPORT_MEDIA_TYPES[plan.request.format])
        .header('content-disposition', `attachment; filename="${plan.fileName}"`)
        .header('cache-control', 'no-store')
        .send(body);
    },
  );
}
