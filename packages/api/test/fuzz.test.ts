import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from '../../core/test/support/random.mjs';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';
import { type RouteCase, routeTable } from './support/route-table.js';

/** Routes whose body could start a crawl of a generated url (never send traffic off loopback). */
const NEVER_FUZZED = new Set([
  // Signing out would end the session the rest of the run uses.
  'POST /v2/logout',
  'POST /v2/crawl/start',
  'POST /v2/crawl/{ref}',
  'POST /v2/crawl/{ref}/{verb}',
  'GET /v2/crawl/{ref}/events',
]);

const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', '-1', '0', '1e9', 'true', 'null', '../../etc/passwd', '%00', '\u0000', 'a'.repeat(3000)),
);
const query = fc.dictionary(
  fc.constantFrom(
    'q',
    'mode',
    'size',
    'cursor',
    'offset',
    'catalog',
    'status',
    'limit',
    'version',
    'keepLatest',
    'dryRun',
    'layers',
    'state',
    'purge',
    'url',
    'zzz',
  ),
  text,
  { maxKeys: 5 },
);

describe('fuzzed query strings and bodies never get a 5xx', () => {
  let f: ApiFixture;
  let routes: RouteCase[];
  beforeAll(async () => {
    f = await openApiFixture();
    await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'fuzz', url: 'http://127.0.0.1:9/' },
    });
    routes = (await routeTable(f.app)).filter((r) => !NEVER_FUZZED.has(`${r.method} ${r.path}`));
  });
  afterAll(async () => f?.close());

  it('query strings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), query, async (r, q) => {
        const qs = new URLSearchParams(q).toString();
        const res = await f.call({
          method: r.method,
          url: `${r.url.replace('no-such-catalog', 'fuzz')}?${qs}`,
          as: 'admin',
        });
        expect(res.statusCode, `${r.method} ${r.url}?${qs}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
        if (res.headers['content-type']?.toString().startsWith('application/json')) {
          expect(() => JSON.parse(res.body)).not.toThrow();
        }
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it('bodies', async () => {
    const writes = routes.filter((r) => r.write);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), fc.jsonValue({ maxDepth: 3 }), async (r, body) => {
        const res = await f.call({
          method: r.method,
          url: r.url,
          payload: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
          as: 'admin',
        });
        expect(
          res.statusCode,
          `${r.method} ${r.url} ${JSON.stringify(body).slice(0, 200)}: ${res.body.slice(0, 300)}`,
        ).toBeLessThan(500);
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('malformed JSON and wrong content types', async () => {
    for (const payload of ['{', '{"url":', 'null', '[]', '"x"', '\u0000']) {
      const res = await f.call({
        method: 'POST',
        url: '/v2/catalog',
        payload,
        headers: { 'content-type': 'application/json' },
        as: 'admin',
      });
      expect(res.statusCode, payload).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, payload).toBeLessThan(500);
    }
    const form = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      payload: 'url=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      as: 'admin',
    });
    expect(form.statusCode).toBe(415);
  });
});

/** Raw query values (sent as they are, not re-encoded): non-finite numbers, wrong types, malformed escapes. */
const RAW_VALUES = [
  '1e309',
  '-1e309',
  'Infinity',
  '-Infinity',
  'NaN',
  '-0',
  '0x10',
  '1.5',
  '-1',
  '99999999999999999999',
  '',
  'true',
  'null',
  '[]',
  '%',
  '%E0%A4%A',
  '%C0%AF',
  '%FF%FE',
  '%00',
  '%2e%2e%2f%2e%2e%2fetc%2fpasswd',
  'a%20b',
  'x'.repeat(5000),
  'http://127.0.0.1:9/x',
];
/** JSON texts of every type, and numbers that parse as Infinity. */
const JSON_VALUES = [
  '123',
  '-1',
  '1.5',
  '1e309',
  '-1e309',
  'true',
  'false',
  'null',
  '"x"',
  '""',
  '"%C0%AF"',
  '"1e309"',
  '[]',
  '[1,"a",null]',
  '{}',
  '{"a":{"b":[1e309]}}',
  `"${'y'.repeat(3000)}"`,
];

/** Absolute paths of this machine in an answer (where the data root lives is nobody's business). */
const ABSOLUTE_PATH = /(^|[\s"'(=])\/(tmp|home|root|var|usr|work|opt|srv|etc|proc|mnt)\/[^\s"']+/;
/** Answers that show the data root on purpose, to a signed-in user: the settings and the storage figures. */
const SHOWS_DATA_ROOT = new Set(['GET /v2/settings', 'GET /v2/storage']);

describe('property-based fuzz of every route: non-finite numbers, wrong JSON types, malformed escapes', () => {
  let f: ApiFixture;
  let routes: RouteCase[];
  const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  beforeAll(async () => {
    f = await openApiFixture();
    await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'fuzz', url: 'http://127.0.0.1:9/' },
    });
    // An event stream stays open while a job runs; signing out would end the session the run uses.
    const skip = new Set(['POST /v2/logout', 'GET /v2/crawl/{ref}/events']);
    routes = (await routeTable(f.app)).filter((r) => !skip.has(`${r.method} ${r.path}`));
  });
  afterAll(async () => {
    for (const j of f?.gf.jobs.list() ?? [])
      if (!j.endedAt) await f.gf.jobs.stop({ jobId: j.jobId }).catch(() => undefined);
    await f?.close();
  });

  const check = (r: RouteCase, what: string, res: { statusCode: number; body: string }) => {
    expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
    if (!SHOWS_DATA_ROOT.has(`${r.method} ${r.path}`) || res.statusCode >= 400) {
      expect(res.body, what).not.toContain(f.tmp.path);
      expect(res.body, what).not.toMatch(ABSOLUTE_PATH);
    }
  };

  it('query strings of every declared field, sent raw (seeded, 600 cases)', async () => {
    const r = rng(30);
    for (let i = 0; i < 600; i++) {
      const route = pick(r, routes);
      const names = [...route.query, 'zzz'];
      const pairs = Array.from({ length: 1 + Math.floor(r() * 3) }, () => {
        const name = pick(r, names);
        return `${name}=${pick(r, RAW_VALUES)}`;
      });
      const url = `${route.url.replace('no-such-catalog', 'fuzz')}?${pairs.join('&')}`;
      const res = await f.call({ method: route.method, url, as: 'admin' });
      check(route, `${route.method} ${url.slice(0, 200)}`, res);
    }
  });

  it('path parameters with malformed escapes', async () => {
    for (const route of routes.filter((x) => x.path.includes('{'))) {
      for (const bad of ['%E0%A4%A', '%C0%AF', '%', '%FF', '..%2F..%2Fetc']) {
        const url = route.path.replace(/\{(\w+)\}/g, bad);
        const res = await f.call({ method: route.method, url, as: 'admin' });
        check(route, `${route.method} ${url}`, res);
      }
    }
  });

  it('bodies with each declared field of every JSON type (seeded, 600 cases)', async () => {
    const r = rng(31);
    const writes = routes.filter((x) => x.write && x.body.length > 0);
    for (let i = 0; i < 600; i++) {
      const route = pick(r, writes);
      const fields = Array.from({ length: 1 + Math.floor(r() * 3) }, () => pick(r, route.body));
      const payload = `{${[...new Set(fields)].map((k) => `"${k}":${pick(r, JSON_VALUES)}`).join(',')}}`;
      const url = route.url.replace('no-such-catalog', 'fuzz');
      const res = await f.call({
        method: route.method,
        url,
        payload,
        headers: { 'content-type': 'application/json' },
        as: 'admin',
      });
      check(route, `${route.method} ${url} ${payload.slice(0, 200)}`, res);
      // A wrong JSON type is never taken: a 2xx only when every field had its own type (not a number as a name).
      if (res.statusCode < 300 && /"name":(123|-1|1\.5|true|false)/.test(payload)) {
        throw new Error(`${route.method} ${url} took a non-string name: ${payload}`);
      }
    }
  });
});
