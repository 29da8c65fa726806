import type { FastifyInstance } from 'fastify';

/** One route of the description, with a url that fills every path parameter with a value of the right shape. */
export interface RouteCase {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  url: string;
  write: boolean;
}

const SAMPLE: Record<string, string> = {
  ref: 'no-such-catalog',
  id: '00000000-0000-4000-8000-000000000000',
  imageId: '00000000-0000-4000-8000-000000000001',
  jobId: 'no-such-job',
  verb: 'update',
};

/** Every route /v2/openapi.json lists, so a route added later is covered without touching the tests. */
export async function routeTable(app: FastifyInstance): Promise<RouteCase[]> {
  const spec = (await app.inject({ method: 'GET', url: '/v2/openapi.json' })).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const cases: RouteCase[] = [];
  for (const [path, methods] of Object.entries(spec.paths)) {
    for (const m of Object.keys(methods)) {
      const method = m.toUpperCase() as RouteCase['method'];
      if (!['GET', 'POST', 'PUT', 'DELETE'].includes(method)) continue;
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => SAMPLE[name] ?? 'x');
      cases.push({ method, path, url, write: method !== 'GET' });
    }
  }
  return cases;
}

/** Routes anyone may call. */
export const OPEN = new Set(['POST /v2/login', 'GET /v2/version', 'GET /v2/health', 'GET /v2/openapi.json']);
