import { cpus, hostname, loadavg, totalmem } from 'node:os';
import { maskedSettings, storesInUse } from '@greenfinger/core';
import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../api-version.js';
import type { ApiContext } from '../context.js';
import { ok } from '../envelope.js';
import { maskUrlsDeep } from '../secrets.js';
import { TreeBytesCache } from '../tree-bytes.js';

/** Version, health, the node, the output layers, storage figures, settings (secrets masked), metrics. */
export function systemRoutes(app: FastifyInstance, ctx: ApiContext): void {
  const { gf } = ctx;
  const trees = new TreeBytesCache();
  app.get(
    '/v2/version',
    { config: { access: 'open' }, schema: { summary: 'The API version', tags: ['system'] } },
    async () => ok({ version: API_VERSION, name: 'greenfinger' }),
  );

  app.get(
    '/v2/health',
    {
      config: { access: 'open' },
      schema: { summary: 'Is this node up, and can it reach its database', tags: ['system'] },
    },
    async (_req, reply) => {
      try {
        await gf.database();
        return ok({
          status: 'UP',
          node: gf.settings.node,
          uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
        });
      } catch (err) {
        void reply.status(503);
        return {
          success: false,
          message: `DOWN: ${err instanceof Error ? err.message : String(err)}`,
          data: { status: 'DOWN' },
        };
      }
    },
  );

  app.get(
    '/v2/node',
    { schema: { summary: 'This node: process, memory, cpu, running jobs', tags: ['system'] } },
    async () => {
      const mem = process.memoryUsage();
      return ok({
        node: gf.settings.node,
        host: hostname(),
        pid: process.pid,
        version: API_VERSION,
        nodeVersion: process.version,
        uptimeSeconds: Math.round((Date.now() - ctx.startedAt) / 1000),
        cpus: cpus().length,
        loadAverage: loadavg(),
        memory: {
          rss: mem.rss,
          heapUsed: mem.heapUsed,
          heapTotal: mem.heapTotal,
          external: mem.external,
          total: totalmem(),
        },
        jobs: gf.jobs.list().filter((j) => j.state === 'running' || j.state === 'queued').length,
      });
    },
  );

  app.get(
    '/v2/system',
    {
      schema: {
        summary: 'Which store each layer uses (records, index, vectors, files, embeddings) and what a cluster copies',
        tags: ['system'],
      },
    },
    async () => ok({ node: gf.settings.node, ...(await storesInUse(gf)) }),
  );

  app.get(
    '/v2/outputs',
    { schema: { summary: 'The output channels a catalog can write, in order', tags: ['system'] } },
    async () =>
      ok([
        { layer: 'file', description: 'pages, article text and pictures on disk', store: 'local files' },
        { layer: 'index', description: 'full-text index (words search)', store: gf.index().name },
        { layer: 'vector', description: 'text vectors (meaning search)', store: gf.vectorFamily().name },
      ]),
  );

  app.get(
    '/v2/storage',
    { schema: { summary: 'What each store holds, and its size on disk', tags: ['system'] } },
    async () => {
      const db = await gf.database();
      // Whole trees, walked within a time budget and cached a while; the index and the vectors under user/ have
      // figures of their own.
      const [files, system] = await Promise.all([
        trees.get(gf.layout.user, { skip: ['index', 'vector'] }),
        trees.get(gf.layout.system),
      ]);
      return ok({
        dataRoot: gf.layout.root,
        database: { kind: db.kind },
        files,
        system,
        index: await gf.index().stats(),
        vectors: await gf.vectorFamily().stats(),
      });
    },
  );

  app.get('/v2/settings', { schema: { summary: "This node's settings, secrets masked", tags: ['system'] } }, async () =>
    // Urls are masked by parsing them (a password may hold '@'); core's masking covers the token key.
    ok(
      maskUrlsDeep({
        ...maskedSettings(gf.settings),
        databaseUrl: gf.settings.databaseUrl,
        redisUrl: gf.settings.redisUrl,
      }),
    ),
  );

  app.get(
    '/v2/metrics',
    {
      schema: {
        summary: 'Prometheus text: counters per catalog and node, fetch latency, frontier sizes',
        tags: ['system'],
      },
    },
    async (_req, reply) => {
      void reply.type('text/plain; version=0.0.4; charset=utf-8');
      return gf.metrics.render();
    },
  );
}
