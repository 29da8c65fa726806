import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { type Greenfinger, SearchPool } from '@greenfinger/core/internal';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { describeAnswers } from './answer-shapes.js';
import { API_VERSION } from './api-version.js';
import { installAccess } from './auth/access.js';
import { Auth } from './auth/auth.js';
import type { LoginLimiter } from './auth/login-limiter.js';
import { TokenSigner, ttlSeconds } from './auth/token.js';
import { loadTokenKey } from './auth/token-key.js';
import type { ApiContext } from './context.js';
import { installErrorEnvelope } from './envelope.js';
import { firecrawlRoutes } from './firecrawl/index.js';
import { alertRoutes } from './routes/alert-routes.js';
import { authRoutes } from './routes/auth-routes.js';
import { catalogRoutes } from './routes/catalog-routes.js';
import { changeRoutes } from './routes/change-routes.js';
import { type ClusterView, clusterRoutes } from './routes/cluster-routes.js';
import { crawlRoutes } from './routes/crawl-routes.js';
import { exportRoutes } from './routes/export-routes.js';
import { feedRoutes } from './routes/feed-routes.js';
import { jobRoutes } from './routes/job-routes.js';
import { mcpRoutes } from './routes/mcp-routes.js';
import { resourceRoutes } from './routes/resource-routes.js';
import { searchRoutes } from './routes/search-routes.js';
import { systemRoutes } from './routes/system-routes.js';
import { maskUrlsDeep } from './secrets.js';
import { endAllStreams } from './sse.js';
import { installStrictInput } from './strict-input.js';
import { registerWeb } from './web.js';

export { API_VERSION } from './api-version.js';
export type { ClusterView } from './routes/cluster-routes.js';

export interface ApiOptions {
  /** Replace the login limiter (tests). */
  limiter?: LoginLimiter;
  /** The clock tokens and the limiter read (tests). @default Date.now */
  now?: () => number;
  /** Serve the page at `/`. @default the GF_API_WEB setting */
  web?: boolean;
  /** The folder the page is served from. @default packages/web/dist */
  webRoot?: string;
  /** The cluster this server is a member of (`serve --cluster`), for `GET /v2/cluster`. @default none */
  cluster?: ClusterView;
  /**
   * Threads that run searches by words, off the event loop (0 = run them on it). Meaning search stays here: its
   * model already runs on a thread of its own. @default 2, or 0 when the Greenfinger was given its own search index
   */
  searchThreads?: number;
}

/**
 * The REST front end over one long-lived Greenfinger: the same core services the CLI drives. Every route declares its
 * JSON schema (a 400 names the field; unknown fields are refused, never dropped) and its access (open, read, write).
 */
export async function buildApp(gf: Greenfinger, options: ApiOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: gf.log as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array', useDefaults: true, allErrors: false } },
  });
  const now = options.now ?? Date.now;
  const signer = new TokenSigner(
    loadTokenKey(gf.layout.system, gf.settings.tokenSecret),
    ttlSeconds(gf.settings.tokenTtl),
  );
  const auth = new Auth(gf, signer, { now, ...(options.limiter ? { limiter: options.limiter } : {}) });
  // A search thread builds the embedded index: a Greenfinger given another index searches on the loop.
  const threads = options.searchThreads ?? (gf.factory.components.searchIndex ? 0 : 2);
  const pool = threads > 0 ? new SearchPool(gf.settings, threads) : undefined;
  const ctx: ApiContext = {
    gf,
    auth,
    startedAt: Date.now(),
    // Words on the search threads; meaning and hybrid here, where the model (on a thread of its own) is loaded once.
    search: async (req) => {
      if (!pool) return gf.search.search(req);
      const mode = await gf.search.modeFor(req);
      return mode === 'words' ? pool.search({ ...req, mode }) : gf.search.search({ ...req, mode });
    },
  };

  installErrorEnvelope(app);
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        // The page shows a stored html page in a sandboxed frame made from a blob (no scripts, opaque origin).
        frameSrc: ["'self'", 'blob:'],
        // serve speaks plain http: a browser reaching it by a LAN address would otherwise ask https for the page's files.
        upgradeInsecureRequests: null,
      },
    },
  });
  const origins = gf.settings.corsOrigins
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (origins.length > 0) await app.register(cors, { origin: origins, credentials: false, maxAge: 600 });
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Greenfinger REST API',
        version: API_VERSION,
        description:
          'See docs/api.md. Sign in with POST /v2/login, then send the header `Authorization: Bearer TOKEN` with the token it answers.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transformObject: describeAnswers,
  });
  await app.register(swaggerUi, { routePrefix: '/v2/docs', staticCSP: true, uiConfig: { docExpansion: 'list' } });
  installAccess(app, auth);
  installStrictInput(app);
  app.addHook('onClose', async () => {
    endAllStreams();
    await pool?.close();
  });
  // The support role reads everything but credentials: a url's password (and `?password=` values) is masked.
  app.addHook('preSerialization', async (req, _reply, payload) =>
    req.principal?.role === 'support' ? maskUrlsDeep(payload) : payload,
  );
  // An answer of the API is about the moment it is asked: no cache (a proxy's or the browser's) keeps it.
  app.addHook('onSend', async (req, reply, payload) => {
    const type = String(reply.getHeader('content-type') ?? '');
    if (req.url.startsWith('/v2/') && type.startsWith('application/json') && !reply.hasHeader('cache-control')) {
      void reply.header('cache-control', 'no-store');
    }
    return payload;
  });

  app.get(
    '/v2/openapi.json',
    { config: { access: 'open' }, schema: { summary: 'This description (OpenAPI 3)', tags: ['system'] } },
    async () => app.swagger(),
  );
  authRoutes(app, ctx);
  systemRoutes(app, ctx);
  catalogRoutes(app, ctx);
  changeRoutes(app, ctx);
  feedRoutes(app, ctx);
  alertRoutes(app, ctx);
  crawlRoutes(app, ctx);
  searchRoutes(app, ctx);
  resourceRoutes(app, ctx);
  exportRoutes(app, ctx);
  jobRoutes(app, ctx);
  mcpRoutes(app, ctx);
  firecrawlRoutes(app, ctx);
  clusterRoutes(app, ctx, options.cluster);
  if (options.web ?? gf.settings.apiWeb) await registerWeb(app, options.webRoot);
  return app;
}
