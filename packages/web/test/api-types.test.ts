import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type ApiFixture, openApiFixture } from '../../api/test/support/api-fixture.js';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { apiTypesText, describeApi, GENERATED } from '../scripts/api-types.mjs';

type Schema = Record<string, unknown> & { $ref?: string };
type Description = { components: { schemas: Record<string, Schema> }; paths: Record<string, Record<string, Schema>> };

/**
 * Where a value does not fit a schema of the description, as `path: why` lines: the JSON schema the description
 * uses (type, nullable, enum, properties, required, additionalProperties, items, $ref, allOf, anyOf).
 */
function misfits(d: Description, s: Schema, v: unknown, at: string): string[] {
  if (v === null) return s.nullable || s.type === 'null' ? [] : [`${at}: null`];
  if (s.$ref) return misfits(d, d.components.schemas[s.$ref.split('/').pop() as string] as Schema, v, at);
  if (s.allOf) return (s.allOf as Schema[]).flatMap((x) => misfits(d, x, v, at));
  if (s.anyOf) return (s.anyOf as Schema[]).some((x) => misfits(d, x, v, at).length === 0) ? [] : [`${at}: no anyOf`];
  if (s.enum && !(s.enum as unknown[]).includes(v)) return [`${at}: ${JSON.stringify(v)} not in enum`];
  const types = [s.type ?? []].flat() as string[];
  const kind = Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  if (types.length && !types.some((t) => t === kind || (t === 'number' && kind === 'integer'))) {
    return [`${at}: ${kind}, described as ${types.join('|')}`];
  }
  if (Array.isArray(v)) return v.flatMap((x, i) => (s.items ? misfits(d, s.items as Schema, x, `${at}[${i}]`) : []));
  if (typeof v !== 'object') return [];
  const o = v as Record<string, unknown>;
  const props = (s.properties ?? {}) as Record<string, Schema>;
  const out = ((s.required ?? []) as string[]).filter((k) => !(k in o)).map((k) => `${at}.${k}: missing`);
  for (const [k, x] of Object.entries(o)) {
    if (props[k]) out.push(...misfits(d, props[k], x, `${at}.${k}`));
    else if (s.additionalProperties === false) out.push(`${at}.${k}: not described`);
    else if (s.additionalProperties && s.additionalProperties !== true) {
      out.push(...misfits(d, s.additionalProperties as Schema, x, `${at}.${k}`));
    }
  }
  return out;
}

describe("the page's API types", () => {
  let description: Description;
  beforeAll(async () => {
    description = (await describeApi()) as Description;
  });

  it('the committed api-types.gen.ts is what the API description generates (else: node packages/web/scripts/api-types.mjs)', () => {
    expect(readFileSync(GENERATED, 'utf8')).toBe(apiTypesText(description));
  });

  describe('the answers of a real crawl fit the description', () => {
    let site: FixtureSite;
    let f: ApiFixture;
    const answers = new Map<string, unknown>();
    const ask = async (route: string, url: string, payload?: unknown) => {
      const [method] = route.split(' ');
      const r = await f.call({ method: method as 'GET', url, as: 'admin', ...(payload ? { payload } : {}) });
      expect(r.statusCode, `${route}: ${r.body.slice(0, 300)}`).toBeLessThan(300);
      const data = r.json().data;
      answers.set(route, data);
      return data;
    };

    beforeAll(async () => {
      site = await startFixtureSite();
      f = await openApiFixture();
      const settings = { intervalMs: 0, outputs: ['file', 'index'], images: true };
      await ask('POST /v2/catalog', '/v2/catalog', { name: 'garden', url: site.startUrl, settings });
      const started = await ask('POST /v2/crawl/{ref}', '/v2/crawl/garden');
      await ask('GET /v2/catalog/running', '/v2/catalog/running');
      const until = Date.now() + 90_000;
      let job = started.job;
      while (!job.endedAt && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        job = await ask('GET /v2/status/{jobId}', `/v2/status/${started.jobId}`);
      }
      expect(job.state).toBe('done');
      const catalog = await ask('GET /v2/catalog/{ref}', '/v2/catalog/garden');
      await ask('PUT /v2/catalog/{ref}', `/v2/catalog/${catalog.id}`, { settings: { maxPages: 500 } });
      const log = await ask('GET /v2/catalog/{ref}/changes/runs', '/v2/catalog/garden/changes/runs');
      await ask('GET /v2/catalog/{ref}/changes/run', `/v2/catalog/garden/changes/run?at=${log.runs[0].at}&limit=3`);
      for (const [route, url] of [
        ['GET /v2/catalog', '/v2/catalog'],
        ['GET /v2/catalog/cats', '/v2/catalog/cats'],
        ['GET /v2/catalog/{ref}/details', '/v2/catalog/garden/details'],
        ['GET /v2/crawl/status', '/v2/crawl/status'],
        ['GET /v2/crawl/{ref}/reports', '/v2/crawl/garden/reports'],
        ['GET /v2/crawl/{ref}/versions', '/v2/crawl/garden/versions'],
        ['DELETE /v2/crawl/{ref}/versions', '/v2/crawl/garden/versions?version=0&force=true'],
        ['GET /v2/search', '/v2/search?q=compost&catalog=garden'],
        ['GET /v2/node', '/v2/node'],
        ['GET /v2/storage', '/v2/storage'],
        ['GET /v2/settings', '/v2/settings'],
      ] as const) {
        await ask(route, url);
      }
      await ask('POST /v2/login', '/v2/login', ADMIN);
      const urls = await ask('GET /v2/urls', '/v2/urls?catalog=garden&status=done&limit=500');
      const withPicture = (
        await Promise.all(
          urls.items.map((u: { urlId: string }) =>
            f.call({ method: 'GET', url: `/v2/resource/${u.urlId}`, as: 'admin' }),
          ),
        )
      )
        .map((r) => r.json().data)
        .find((r) => r?.images?.length > 0);
      expect(withPicture, 'a saved page with a picture').toBeDefined();
      answers.set('GET /v2/resource/{id}', withPicture);
      await ask('GET /v2/urls/{id}', `/v2/urls/${urls.items[0].urlId}`);
    }, 150_000);
    afterAll(async () => {
      await f?.close();
      await site?.close();
    });

    it('every answer asked for is described, and fits its shape', () => {
      const wrong: string[] = [];
      for (const [route, data] of answers) {
        const [method, path] = route.split(' ') as [string, string];
        const op = description.paths[path]?.[method.toLowerCase()] as Schema | undefined;
        const schema = (op?.responses as Record<string, Schema> | undefined)?.['200']?.content as
          | Record<string, { schema: Schema }>
          | undefined;
        const data$ = schema?.['application/json']?.schema.properties as Record<string, Schema> | undefined;
        if (!data$?.data) wrong.push(`${route}: no answer described`);
        else wrong.push(...misfits(description, data$.data, data, route));
      }
      expect(wrong).toEqual([]);
      expect(answers.size).toBe(23);
    });
  });
});
