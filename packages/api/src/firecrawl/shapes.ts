import type { Access } from '../auth/access.js';
import { HttpRefusal } from '../envelope.js';

/** The two versions of Firecrawl's API answered: the SDK's current client calls v2, its `FirecrawlAppV1` v1. */
export type FirecrawlVersion = 'v1' | 'v2';

/** The formats a page is answered in here; Firecrawl's others (json, screenshot, summary, …) are refused. */
export const FORMATS = ['markdown', 'html', 'rawHtml', 'links', 'images'] as const;
export type Format = (typeof FORMATS)[number];

/** What a scrape (or each page of a crawl, or each search result) is answered with. */
export interface ScrapeWants {
  formats: Set<Format>;
  /** The article only (true) or the whole page (false). */
  onlyMainContent: boolean;
}

/** Firecrawl's page: the formats asked for and its metadata. */
export interface FirecrawlDocument {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  images?: string[];
  metadata: Record<string, unknown>;
}

type Json = Record<string, unknown>;

/** A format: its name, or `{type: name}` as v2 writes it. Checked by {@link wantsOf}, which names what is refused. */
const format = {
  anyOf: [
    { type: 'string', maxLength: 40 },
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: { type: { type: 'string', maxLength: 40 } },
    },
  ],
} as const;

/** Accepted and not acted on: hints of how Firecrawl's cloud fetches (docs/firecrawl.md says why each is ignored). */
const IGNORED_SCRAPE_HINTS = {
  timeout: { type: 'integer', minimum: 1, description: 'ignored: the fetcher has its own timeouts' },
  waitFor: { type: 'integer', minimum: 0, description: 'ignored: the adaptive extractor renders when a page needs it' },
  maxAge: { type: 'integer', minimum: 0, description: 'ignored: a scrape always fetches' },
  minAge: { type: 'integer', minimum: 0, description: 'ignored' },
  storeInCache: { type: 'boolean', description: 'ignored: a scrape stores nothing' },
  removeBase64Images: { type: 'boolean', description: 'ignored' },
  blockAds: { type: 'boolean', description: 'ignored: scripts are never run for the text' },
  fastMode: { type: 'boolean', description: 'ignored' },
  proxy: { type: 'string', enum: ['basic', 'auto'], description: 'ignored: no proxy is used' },
} as const;

/** The scrape options Firecrawl's SDK sends (scrape's body, crawl's and search's `scrapeOptions`). */
export const scrapeOptionsProperties = {
  formats: { type: 'array', maxItems: 20, items: format, description: `any of ${FORMATS.join(', ')}` },
  onlyMainContent: { type: 'boolean', default: true, description: 'false: the whole page, not the article' },
  ...IGNORED_SCRAPE_HINTS,
} as const;

/** Fields every SDK request carries or may carry, about the caller (accepted, ignored). */
export const callerFields = {
  origin: { type: 'string', maxLength: 200, description: 'the SDK names itself here; ignored' },
  integration: { type: 'string', maxLength: 200, description: 'ignored' },
} as const;

export const urlField = { type: 'string', minLength: 1, maxLength: 2048 } as const;

/** An object schema refusing unknown fields. */
export function strictObject(properties: Json, required: string[] = []): Json {
  return { type: 'object', additionalProperties: false, required, properties };
}

/** The formats and article switch asked for; a format this API does not make is a 400 naming it. */
export function wantsOf(
  options: { formats?: Array<string | { type: string }>; onlyMainContent?: boolean } | undefined,
  field: string,
  fallback: Format[] = ['markdown'],
): ScrapeWants {
  const names = (options?.formats ?? fallback).map((f) => (typeof f === 'string' ? f : f.type));
  const refused = names.filter((n) => !(FORMATS as readonly string[]).includes(n));
  if (refused.length > 0) {
    throw new HttpRefusal(
      400,
      `body: ${field} "${refused[0]}" is not made here: Greenfinger answers ${FORMATS.join(', ')} (see docs/firecrawl.md)`,
    );
  }
  return { formats: new Set(names as Format[]), onlyMainContent: options?.onlyMainContent ?? true };
}

/** A 400 for a Firecrawl field this API does not act on, with why. */
export function unsupported(field: string, why: string): HttpRefusal {
  return new HttpRefusal(400, `body: "${field}" is not supported by Greenfinger's Firecrawl API: ${why}`);
}

/** One route, as registered and as described at `GET /firecrawl/openapi.json`. */
export interface FirecrawlRoute {
  method: 'GET' | 'POST' | 'DELETE';
  /** Under the prefix, fastify style (`/v2/crawl/:id`). */
  url: string;
  summary: string;
  access: Access;
  body?: Json;
  params?: Json;
  querystring?: Json;
}

/** The OpenAPI 3 description of the Firecrawl-compatible routes (they are not in `/v2/openapi.json`). */
export function describeFirecrawl(prefix: string, routes: readonly FirecrawlRoute[], version: string): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const path = `${prefix}${r.url.replace(/:(\w+)/g, '{$1}')}`;
    const parameters = [
      ...Object.keys((r.params?.properties as Json | undefined) ?? {}).map((name) => ({
        in: 'path',
        name,
        required: true,
        schema: { type: 'string' },
      })),
      ...Object.entries((r.querystring?.properties as Record<string, Json> | undefined) ?? {}).map(
        ([name, schema]) => ({ in: 'query', name, schema }),
      ),
    ];
    paths[path] = {
      ...paths[path],
      [r.method.toLowerCase()]: {
        summary: r.summary,
        tags: [`firecrawl ${r.url.split('/')[1]}`],
        description: `Access: ${r.access === 'write' ? 'an admin token' : 'any signed-in role'}.`,
        ...(parameters.length ? { parameters } : {}),
        ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
        responses: { 200: { description: "Firecrawl's answer (docs/firecrawl.md)" } },
      },
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: "Greenfinger: Firecrawl's API over the stored collection",
      version,
      description:
        "Firecrawl's REST API as its official SDK calls it, answered by Greenfinger (docs/firecrawl.md). The API key is a Greenfinger token: POST /v2/login.",
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths,
  };
}
