import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
