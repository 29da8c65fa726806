import { CrawlerError } from '@greenfinger/core';
import type { ChangeLogEntry } from '@greenfinger/core/internal';
import type { FastifyInstance } from 'fastify';
import { streamChangeEvents } from '../change-events.js';
import { type ApiContext, catalogRef } from '../context.js';
import { ok } from '../envelope.js';
import { refParams } from '../schemas.js';

/** `since`: a version number, or a date (ISO, at least YYYY-MM-DD); a 400 naming the field otherwise. */
function sinceQuery(since: string | undefined): { sinceVersion?: number; sinceDate?: Date } {
  if (since === undefined) return {};
  const v = since.trim();
  if (/^\d+$/.test(v) && Number.isSafeInteger(Number(v))) return { sinceVersion: Number(v) };
  const at = /^\d{4}-\d{2}-\d{2}/.test(v) ? Date.parse(v) : Number.NaN;
  if (Number.isNaN(at)) {
    throw new CrawlerError('BAD_INPUT', `since: "${since}" is neither a version number nor a date`, {
      fix: 'give a version (since=0) or a date (since=2026-12-05 or since=2026-12-05T10:00:00Z)',
    });
  }
  return { sinceDate: new Date(at) };
}

/** A run's change set with each list cut to `limit` urls; `total` says how many each held. */
function runView(entry: ChangeLogEntry, limit: number) {
  return {
    version: entry.version,
    action: entry.action,
    at: entry.at,
    ...(entry.comparedWith !== undefined ? { comparedWith: entry.comparedWith } : {}),
    total: { added: entry.added.length, changed: entry.changed.length, removed: entry.removed.length },
    added: entry.added.slice(0, limit),
    changed: entry.changed.slice(0, limit),
    removed: entry.removed.slice(0, limit),
  };
}

/** The change log (docs/freshness.md): what the latest publishing run changed, or every run since; two versions compared. */
export function changeRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { gf } = ctx;
  const tags = ['catalogs'];

  app.get<{ Params: { ref: string }; Querystring: { since?: string } }>(
    '/v2/catalog/:ref/changes',
    {
      schema: {
        summary:
          'The change set of the latest run that published (urls added, changed with a short diff, removed), or of every run since a version or a date, folded into one',
        tags,
        params: refParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            since: { type: 'string', minLength: 1, maxLength: 40, description: 'a version number or a date' },
          },
        },
      },
    },
    async (req) => ok(await gf.changes.changes(catalogRef(req.params.ref), sinceQuery(req.query.since))),
  );

  app.get<{ Params: { ref: string }; Querystring: { limit: number } }>(
    '/v2/catalog/:ref/changes/runs',
    {
      schema: {
        summary:
          'The change log run by run, newest first: each publishing run with how many urls it added, changed and removed',
        tags,
        params: refParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: { limit: { type: 'integer', minimum: 1, maximum: 1000, default: 50 } },
        },
      },
    },
    async (req) => {
      const catalog = await (await gf.catalogs()).get(catalogRef(req.params.ref));
      const log = await gf.changes.log(catalog);
      const runs = log
        .slice(-req.query.limit)
        .reverse()
        .map((e) => {
          const { total, version, action, at, comparedWith } = runView(e, 0);
          return { version, action, at, ...(comparedWith !== undefined ? { comparedWith } : {}), ...total };
        });
      return ok({ catalog: { id: catalog.id, name: catalog.name }, runs, total: log.length });
    },
  );

  app.get<{ Params: { ref: string }; Querystring: { at: string; limit: number } }>(
    '/v2/catalog/:ref/changes/run',
    {
      schema: {
        summary:
          'One publishing run of the change log (by the time it ended, as `changes/runs` lists it): its urls added, changed with a short diff, removed, each list cut to `limit`',
        tags,
        params: refParams,
        querystring: {
          type: 'object',
          required: ['at'],
          additionalProperties: false,
          properties: {
            at: { type: 'string', minLength: 10, maxLength: 40, description: "the run's `at`, as listed" },
            limit: { type: 'integer', minimum: 1, maximum: 10_000, default: 200 },
          },
        },
      },
    },
    async (req) => {
      const at = Date.parse(req.query.at);
      if (Number.isNaN(at)) {
        throw new CrawlerError('BAD_INPUT', `at: "${req.query.at}" is not a time`, {
          fix: 'give the `at` of a run as GET /v2/catalog/{ref}/changes/runs lists it',
        });
      }
      const catalog = await (await gf.catalogs()).get(catalogRef(req.params.ref));
      const entry = (await gf.changes.log(catalog)).find((e) => Date.parse(e.at) === at);
      if (!entry) {
        throw new CrawlerError(
          'NOT_FOUND',
          `"${catalog.name}" has no run of its change log that ended at ${req.query.at}`,
          {
            fix: `see GET /v2/catalog/${catalog.name}/changes/runs`,
          },
        );
      }
      return ok({ catalog: { id: catalog.id, name: catalog.name }, ...runView(entry, req.query.limit) });
    },
  );

  app.get<{ Params: { ref: string } }>(
    '/v2/catalog/:ref/changes/events',
    {
      schema: {
        summary:
          'Server-sent events: the running job, then the change set its run recorded once it ends (or the latest one at once when nothing runs)',
        tags,
        params: refParams,
      },
    },
    async (req, reply) => {
      const c = await (await gf.catalogs()).get(catalogRef(req.params.ref));
      const header = req.headers.authorization;
      await streamChangeEvents(req, reply, gf, c, () => ctx.auth.authenticate(header).then(() => true));
    },
  );

  app.get<{ Params: { ref: string }; Querystring: { from: number; to: number } }>(
    '/v2/catalog/:ref/diff',
    {
      schema: {
        summary: 'Two kept versions compared: urls added, changed (with a short diff), removed',
        tags,
        params: refParams,
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['from', 'to'],
          properties: {
            from: { type: 'integer', minimum: 0, maximum: 1_000_000 },
            to: { type: 'integer', minimum: 0, maximum: 1_000_000 },
          },
        },
      },
    },
    async (req) => ok(await gf.changes.diff(catalogRef(req.params.ref), req.query.from, req.query.to)),
  );
}
