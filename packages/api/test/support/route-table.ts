import type { FastifyInstance } from 'fastify';

/** One route of the description, with a url that fills every path parameter with a value of the right shape. */
export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  url: string;
  write: boolean;
  /** The query fields it declares. */
  query: string[];
  /** The top-level body fields it declares. */
  body: string[];
}

const SAMPLE: Record<string, string> = {
  ref: 'no-such-catalog',
  id: '00000000-0000-4000-8000-000000000000',
  imageId: '00000000-0000-4000-8000-000000000001',
  jobId: 'no-such-job',
  verb: 'update',
};

interface Operation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
}

/** Every route /v2/openapi.json lists, so a route added later is covered without touching the tests. */
export async function routeTable(app: FastifyInstance): Promise<RouteCase[]> {
  const spec = (await app.inject({ method: 'GET', url: '/v2/openapi.json' })).json() as {
    paths: Record<string, Record<string, Operation>>;
  };
  const cases: RouteCase[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const [m, op] of Object.entries(methods)) {
      const method = m.toUpperCase() as RouteCase['method'];
      if (!['GET', 'POST', 'PUT', 'DELETE'].includes(method)) continue;
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE[name] ?? 'x');
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const body = Object.keys(op.requestBody?.content?.['application/json']?.schema?.properties ?? {});
      cases.push({ method, path, url, write: method !== 'GET', query, body });
    }
  }
  return cases;
}

/** Routes anyone may call. */
export const OPEN = new Set(['POST /v2/login', 'GET /v2/version', 'GET /v2/health', 'GET /v2/openapi.json']);
