import type { LedgerState } from '@greenfinger/core';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { type ApiContext, catalogRef } from '../context.js';
import { ok } from '../envelope.js';
import { idParams, ledgerStates, paging } from '../schemas.js';

/** A stored file goes out as inert bytes: never sniffed, never run, cached privately (an id's bytes never change). */
function fileHeaders(reply: FastifyReply, type: string, bytes: number): FastifyReply {
  return reply
    .type(type)
    .header('content-length', String(bytes))
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'")
    .header('cache-control', 'private, max-age=604800, immutable')
    .header('cross-origin-resource-policy', 'same-origin');
}

/** The file name a document is downloaded under: its url's last segment, reduced to safe characters. */
function downloadName(url: string): string {
  const raw = new URL(url).pathname.split('/').pop() || 'document';
  // A url may hold an escape that is no UTF-8 (`/doc-%C0%AF.txt`): then the name keeps it as it is written.
  let last = raw;
  try {
    last = decodeURIComponent(raw);
  } catch {
    // kept undecoded
  }
  return last.replace(/[^\w.-]+/g, '_').slice(0, 120) || 'document';
}

const IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)$/;

/** Saved pages of a version (paged, filtered), one page with its pictures, and its files by id — never by a path. */
export function resourceRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { gf } = ctx;
  const tags = ['resources'];

  app.get<{
    Querystring: { catalog: string; version?: number; q?: string; state?: LedgerState; limit: number; offset: number };
  }>(
    '/v2/resource',
    {
      schema: {
        summary: 'The urls of a version with their pages: filtered by text (a part of the url) and state, paged',
        tags,
        querystring: {
          type: 'object',
          required: ['catalog'],
          additionalProperties: false,
          properties: {
            catalog: { type: 'string', minLength: 1, maxLength: 200 },
            version: { type: 'integer', minimum: 0 },
            q: { type: 'string', maxLength: 2000 },
            state: { type: 'string', enum: ledgerStates },
            ...paging,
          },
        },
      },
    },
    async (req) => {
      const q = req.query;
      const listed = await gf.ledger.list({
        catalog: catalogRef(q.catalog),
        version: q.version,
        text: q.q,
        state: q.state ?? 'done',
        limit: q.limit,
        offset: q.offset,
      });
      const records = (await gf.database()).resources;
      const items = await Promise.all(
        listed.items.map(async (row) => {
          const r = row.outcome === 'SAVED' ? await records.getResource(row.id) : undefined;
          return {
            ...row,
            changedAt: row.changedAt ?? null,
            changeCount: row.changeCount ?? 0,
            resource: r
              ? { title: r.title, contentType: r.contentType, htmlBytes: r.htmlBytes, textChars: r.textChars }
              : null,
          };
        }),
      );
      return ok({ catalog: listed.catalog, version: listed.version, items, total: listed.total });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v2/resource/:id',
    {
      schema: {
        summary: 'One saved page: its row, its pictures, and where its files are served',
        tags,
        params: idParams,
      },
    },
    async (req, reply) => {
      const records = (await gf.database()).resources;
      const r = await records.getResource(req.params.id);
      if (!r) return reply.status(404).send(notFound(req.params.id));
      const images = await records.imagesOfResource(r.id);
      return ok({
        ...r,
        files: {
          html: `/v2/resource/${r.id}/html`,
          text: `/v2/resource/${r.id}/text`,
          markdown: `/v2/resource/${r.id}/markdown`,
        },
        images: images.map((i) => ({ ...i, file: `/v2/resource/${r.id}/image/${i.id}` })),
      });
    },
  );

  for (const kind of ['html', 'text'] as const) {
    app.get<{ Params: { id: string } }>(
      `/v2/resource/:id/${kind}`,
      { schema: { summary: `The stored ${kind} of a page, by its id`, tags, params: idParams } },
      async (req, reply) => {
        const r = await (await gf.database()).resources.getResource(req.params.id);
        const bytes = r ? await gf.blobs.get(kind === 'html' ? r.htmlPath : r.textPath) : undefined;
        if (!r || !bytes) return reply.status(404).send(notFound(req.params.id));
        // A document (PDF, Word, text) keeps its original bytes where a page keeps its html: sent as what it is.
        const document =
          kind === 'html' && !/^\s*(text\/html|application\/xhtml\+xml)/i.test(r.contentType || 'text/html');
        const type =
          kind === 'text' ? 'text/plain; charset=utf-8' : document ? r.contentType : 'text/html; charset=utf-8';
        const sent = fileHeaders(reply, type, bytes.length);
        if (document) sent.header('content-disposition', `attachment; filename="${downloadName(r.url)}"`);
        return sent.send(bytes);
      },
    );
  }

  app.get<{ Params: { id: string }; Querystring: { download?: boolean } }>(
    '/v2/resource/:id/markdown',
    {
      schema: {
        summary:
          'A page as Markdown, by its id: front matter (title, url, catalog, version, fetched), then the article',
        tags,
        params: idParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { download: { type: 'boolean', description: 'sent as an attachment named after the page' } },
        },
      },
    },
    async (req, reply) => {
      const r = await (await gf.database()).resources.getResource(req.params.id);
      if (!r) return reply.status(404).send(notFound(req.params.id));
      const page = await gf.pages.markdown({ id: r.id });
      const bytes = Buffer.from(page.markdown, 'utf8');
      const sent = fileHeaders(reply, 'text/markdown; charset=utf-8', bytes.length).header(
        'x-markdown-source',
        page.source,
      );
      if (req.query.download) {
        const name = downloadName(r.url).replace(/\.[a-z0-9]+$/i, '') || 'page';
        sent.header('content-disposition', `attachment; filename="${name}.md"`);
      }
      return sent.send(bytes);
    },
  );

  app.get<{ Params: { id: string; imageId: string } }>(
    '/v2/resource/:id/image/:imageId',
    {
      schema: {
        summary: 'A picture of a page, by the page id and the picture id',
        tags,
        params: {
          type: 'object',
          required: ['id', 'imageId'],
          properties: { id: idParams.properties.id, imageId: idParams.properties.id },
        },
      },
    },
    async (req, reply) => {
      const images = await (await gf.database()).resources.imagesOfResource(req.params.id);
      const image = images.find((i) => i.id === req.params.imageId);
      const bytes = image ? await gf.blobs.get(image.path) : undefined;
      if (!image || !bytes) return reply.status(404).send(notFound(req.params.imageId));
      const type = IMAGE_TYPES.test(image.contentType) ? image.contentType : 'application/octet-stream';
      return fileHeaders(reply, type, bytes.length).send(bytes);
    },
  );
}

function notFound(id: string) {
  return { success: false, message: `no stored page or picture ${id}`, data: null };
}
