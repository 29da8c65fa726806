import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { failure } from './envelope.js';

/** Where `pnpm run build` writes the page: packages/web/dist (the same from src/ and dist/ of this package). */
export const defaultWebRoot = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * The search page: `/` answers packages/web/dist/index.html and each file of that folder is served at its name, every
 * one open (the page signs in through the API; nothing secret is in it). Only the files present at start are routes
 * (no wildcard), so an unknown path — above all under /v2 — still gets the JSON 404, never the page.
 */
export async function registerWeb(app: FastifyInstance, root: string = defaultWebRoot): Promise<void> {
  if (!existsSync(join(root, 'index.html'))) {
    app.get('/', { config: { access: 'open' }, schema: { hide: true } }, async (_req, reply) =>
      reply
        .status(503)
        .send(failure(`the page is not built (${root} has no index.html): run pnpm run build, then start serve again`)),
    );
    return;
  }
  await app.register(async (scope) => {
    // Every route of this scope (the static files and `/`) is open and left out of the API's description.
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), access: 'open' } as typeof route.config;
      route.schema = { ...route.schema, hide: true };
    });
    await scope.register(fastifyStatic, {
      root,
      prefix: '/',
      wildcard: false,
      index: false,
      // Revalidated on every load (etag / last-modified): a rebuilt page is seen at once.
      cacheControl: true,
      maxAge: 0,
    });
    scope.get('/', async (_req, reply) => reply.sendFile('index.html'));
  });
}
