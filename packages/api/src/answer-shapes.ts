import type { SwaggerTransformObject } from '@fastify/swagger';
import { HOST_RATES_SHAPE } from './host-rate-shape.js';
import { bool, counts, doc, int, lines, list, nullable, num, obj, ref, type Schema, str } from './schema-kit.js';
import { catalogSettingsJson } from './schemas.js';

// What the routes answer, for the description only (`/v2/openapi.json`): the shape of each answer's `data`, as named
// components and by route. Fastify does not serialise with them (an answer is sent as the route returns it), so a
// field missing here is still sent; `required` lists the fields every answer holds. The page's types are generated
// from this description (packages/web/scripts/api-types.mjs), and packages/web/test/api-types.test.ts checks real
// answers against it.

const embeddingNotice = obj({ pages: num, embedded: num, complete: num, catalogs: list(str) });

/** The named shapes (`#/components/schemas/…`). */
export const ANSWER_SHAPES: Record<string, Schema> = {
  CatalogSettings: doc('The settings a catalog stores (those not given take their defaults).', catalogSettingsJson),
  Catalog: obj({
    id: str,
    name: str,
    url: str,
    startUrl: str,
    settings: ref('CatalogSettings'),
    indexVersion: doc('The version being written.', int),
    searchVersion: doc('The version search reads; -1 = none published yet.', int),
    runningState: str,
    createdAt: str,
    updatedAt: str,
  }),
  Counters: doc(
    'Live counters of a run, each REJECTED_* with its count in `rejected` and its first url in `examples`.',
    obj(
      {
        dispatched: num,
        handled: num,
        saved: num,
        images: num,
        indexed: num,
        vectored: num,
        alreadySeen: num,
        filtered: num,
        unreachable: num,
        duplicateContent: num,
        failures: num,
        abandoned: num,
        unmodified: num,
        redirected: num,
        rejected: counts,
        examples: lines,
      },
      [],
      true,
    ),
  ),
  RunReport: doc(
    'The report of one run (docs/reports.md); the fields the page reads, the others are sent as well.',
    obj(
      {
        node: str,
        catalogId: str,
        catalog: str,
        version: int,
        action: str,
        startedAt: str,
        endedAt: str,
        elapsedMs: num,
        produced: obj({ saved: num, images: num, indexed: num, vectored: num }),
        urls: obj(
          {
            dispatched: num,
            handled: num,
            filtered: num,
            unreachable: num,
            duplicateContent: num,
            failures: num,
            unmodified: num,
            redirected: num,
          },
          [],
          true,
        ),
        rejected: counts,
        examples: lines,
        ending: obj({ reason: str, fullyCrawled: bool, published: bool, note: str }, ['note', 'fullyCrawled'], true),
      },
      [],
      true,
    ),
  ),
  JobView: doc(
    'A background job: a crawl verb or a replay, its live counters and, once it ended, its report.',
    obj(
      {
        jobId: str,
        catalog: str,
        catalogId: str,
        version: int,
        action: str,
        state: doc('queued, running, completed, failed or stopped', str),
        counters: nullable(ref('Counters')),
        queued: num,
        active: num,
        pagesPerSecond: num,
        hosts: HOST_RATES_SHAPE,
        embedding: nullable(obj({ phase: str, pages: num, embedded: num, complete: num, chunks: num }, [], true)),
        report: nullable(ref('RunReport')),
        error: nullable(str),
        startedAt: str,
        endedAt: nullable(str),
      },
      ['active', 'embedding'],
    ),
  ),
  ScheduledCatalog: doc(
    'A catalog with a schedule: when its last run ended, when the schedule next runs it, what its last run changed.',
    obj(
      {
        catalogId: str,
        catalog: str,
        schedule: str,
        lastRunAt: nullable(str),
        nextRunAt: nullable(str),
        running: bool,
        lastChanges: nullable(obj({ at: str, version: int, added: int, changed: int, removed: int })),
      },
      ['lastChanges'],
    ),
  ),
  RunningCatalog: doc(
    'A catalog crawling now (as `status` prints it) and the job of this server that runs it, if any.',
    obj(
      {
        catalogId: str,
        catalog: str,
        pid: int,
        since: str,
        where: str,
        job: nullable(str),
        counters: ref('Counters'),
        queued: num,
        pagesPerSecond: num,
      },
      ['catalog', 'counters', 'queued', 'pagesPerSecond'],
      true,
    ),
  ),
  ReportRow: obj({ catalogId: str, version: int, action: str, published: bool, report: ref('RunReport') }, [], true),
  VersionRow: obj(
    {
      version: int,
      state: doc('serving, published, incomplete, running or empty', str),
      published: bool,
      serving: bool,
      saved: num,
      images: num,
      startedAt: nullable(str),
      endedAt: nullable(str),
      action: nullable(str),
      search: obj({
        words: bool,
        meaning: bool,
        embedding: nullable(obj({ pages: num, embedded: num, complete: num })),
      }),
    },
    [],
  ),
  DeleteRow: obj({ version: int, layer: str, count: num, bytes: num, error: str, note: str }, ['error', 'note']),
  DeleteReport: obj({
    catalogId: str,
    catalog: str,
    dryRun: bool,
    versions: list(int),
    layers: list(str),
    results: list(ref('DeleteRow')),
    searchVersion: int,
    purged: bool,
  }),
  SearchHit: obj(
    {
      id: str,
      title: str,
      url: str,
      catalog: str,
      catalogId: str,
      version: int,
      score: num,
      highlights: list(str),
      pictures: doc('The pictures of the page, deduplicated by image id (page modes).', list(ref('PagePicture'))),
      pictureUrl: doc("Pictures mode: the picture's own url.", str),
      file: doc(
        "Pictures mode: the stored file, under the data root's user/ (its bytes: GET /v2/resource/{pages[0].id}/image/{imageId}).",
        str,
      ),
      width: nullable(int),
      height: nullable(int),
      alt: str,
      caption: doc('Pictures mode: the caption or surrounding text; highlights holds what matched.', str),
      imageId: str,
      pages: doc('Pictures mode: the pages that show it (the first 100).', list(ref('PicturePage'))),
      pageCount: int,
      fetchedAt: doc("A blank query's listing (newest fetch first): when the page was fetched.", str),
    },
    [
      'pictures',
      'pictureUrl',
      'file',
      'width',
      'height',
      'alt',
      'caption',
      'imageId',
      'pages',
      'pageCount',
      'fetchedAt',
    ],
  ),
  PagePicture: obj(
    { id: str, path: str, url: str, alt: str, caption: str, width: nullable(int), height: nullable(int) },
    ['caption', 'width', 'height'],
  ),
  PicturePage: obj({ id: str, url: str, title: str }),
  SearchPage: obj(
    {
      mode: doc('The mode that answered: hybrid, words, meaning or pictures.', str),
      match: doc(
        "Words: how the pages matched: 'all' their words, 'any' (no page held them all, or match=any) or 'question' (a sentence: 4+ words, no quotes, one on half the pages: any of them and their pairs, the best page with all in the first three).",
        str,
      ),
      results: list(ref('SearchHit')),
      total: num,
      pageSize: int,
      nextCursor: nullable(str),
      elapsedMillis: num,
      embedding: doc(
        'Meaning search over vectors still being written: it answered from the pages embedded so far.',
        embeddingNotice,
      ),
      note: doc('Why an answer is empty or narrower than asked when the reason is not the query (no vectors).', str),
      likeBy: doc("like=: what was compared: 'image' (image vectors) or 'caption meaning' (text vectors).", str),
      likeOf: doc('like=: the picture the results are like.', ref('SearchHit')),
      rankings: doc("Pictures mode: the rankings fused: 'words', then 'caption meaning', 'image'.", list(str)),
    },
    ['match', 'embedding', 'note', 'likeBy', 'likeOf', 'rankings'],
  ),
  UrlRow: obj({
    urlId: str,
    url: str,
    state: str,
    outcome: str,
    detail: str,
    status: nullable(int),
    reason: str,
    referrer: nullable(str),
    depth: int,
    redirects: doc('The redirects that led to this url, first one first.', list(str)),
    foundAs: doc(
      'The link as it was written when url normalisation changed it (a session id, a fragment, …); null when not.',
      nullable(str),
    ),
    priority: doc(
      'The priority it was queued with (docs/crawling.md): score 0 to 1, front queue 0 (first) to 7 and the parts; null for a start url, a redirect target, a refused url or one queued before priorities were kept.',
      nullable(
        obj({
          score: num,
          queue: int,
          parts: obj({ depth: num, type: num, freshness: num, quality: num, sitemap: num }),
        }),
      ),
    ),
    fetchedAt: nullable(str),
    changedAt: doc(
      'When its page last changed in this version (saved new, its article changed, removed; docs/freshness.md); null when never.',
      nullable(str),
    ),
    changeCount: doc('How many times its page changed in this version (0: never).', int),
    catalogId: str,
    version: int,
  }),
  UrlList: obj({ catalog: obj({ id: str, name: str }), version: int, items: list(ref('UrlRow')), total: num }),
  ResourceImage: obj({ id: str, url: str, alt: str, file: str, contentType: str }, ['alt'], true),
  ResourceView: obj(
    {
      id: str,
      title: str,
      url: str,
      files: obj({ html: str, text: str, markdown: str }),
      images: list(ref('ResourceImage')),
    },
    [],
    true,
  ),
  SignedIn: obj({ token: str, username: str, roles: list(str), expiresInSeconds: num }),
  NodeView: obj({
    node: str,
    host: str,
    pid: int,
    version: str,
    nodeVersion: str,
    uptimeSeconds: num,
    cpus: int,
    loadAverage: list(num),
    memory: obj({ rss: num, heapUsed: num, heapTotal: num, external: num, total: num }),
    jobs: int,
  }),
  System: obj({
    node: str,
    providers: obj({
      records: obj({ provider: str }),
      index: obj({ provider: str }),
      vectors: obj({ provider: str, collection: str }),
      files: obj({ provider: str }),
      embeddings: obj({ provider: str, model: str, dims: int }, ['dims']),
    }),
    cluster: obj({ records: str, index: str, vectors: str, files: str }),
  }),
  Storage: obj({
    dataRoot: str,
    database: obj({ kind: str }),
    files: obj({ bytes: num }, [], true),
    system: obj({ bytes: num }, [], true),
    index: obj({
      name: str,
      bytes: num,
      catalogs: list(
        obj({ catalogId: str, documents: num, bytes: num, versions: list(obj({ version: int, documents: num })) }),
      ),
    }),
    vectors: obj({
      name: str,
      bytes: num,
      collections: list(obj({ collection: str, dims: int, points: num, bytes: num })),
    }),
  }),
  JobStarted: obj({ jobId: str, job: ref('JobView') }),
  Changes: doc(
    'What changed in a catalog: urls added, pages whose article changed beyond volatile text (with a short diff), urls removed.',
    obj({
      catalog: obj({ id: str, name: str }),
      runs: doc('The publishing runs it covers, oldest first.', list(obj({ version: int, action: str, at: str }))),
      added: list(str),
      changed: list(obj({ url: str, diff: doc('Lines removed (`- …`), then lines added (`+ …`).', str) })),
      removed: list(str),
    }),
  ),
  ChangeRuns: doc(
    'The change log run by run, newest first: each publishing run and how many urls it added, changed and removed.',
    obj({
      catalog: obj({ id: str, name: str }),
      runs: list(
        obj(
          {
            version: int,
            action: str,
            at: doc('When the run ended: the key of `changes/run?at=`.', str),
            comparedWith: doc('A rebuild: the version its set was compared with.', int),
            added: int,
            changed: int,
            removed: int,
          },
          ['comparedWith'],
        ),
      ),
      total: doc('How many runs the change log holds.', int),
    }),
  ),
  ChangeRun: doc(
    "One publishing run's change set: its urls added, changed (with a short diff), removed, each list cut to `limit`.",
    obj(
      {
        catalog: obj({ id: str, name: str }),
        version: int,
        action: str,
        at: str,
        comparedWith: int,
        total: obj({ added: int, changed: int, removed: int }),
        added: list(str),
        changed: list(obj({ url: str, diff: doc('Lines removed (`- …`), then lines added (`+ …`).', str) })),
        removed: list(str),
      },
      ['comparedWith'],
    ),
  ),
  Alert: doc(
    'A saved search of a catalog: it fires when a page a publishing run added or changed matches it.',
    obj({
      id: str,
      catalogId: str,
      name: str,
      query: str,
      mode: doc('words, meaning or hybrid', str),
      createdAt: str,
      lastFiredAt: nullable(str),
      lastMatches: nullable(list(obj({ url: str, title: str }))),
    }),
  ),
  Alerts: obj({
    catalog: obj({ id: str, name: str }),
    alerts: list(ref('Alert')),
    webhooks: list(
      obj({
        url: str,
        lastDelivery: nullable(
          obj(
            {
              url: str,
              status: doc('delivered, failed or refused', str),
              httpStatus: int,
              attempts: int,
              at: str,
              runId: str,
              error: str,
            },
            ['httpStatus', 'error'],
          ),
        ),
      }),
    ),
  }),
  VersionDiff: obj({
    catalog: obj({ id: str, name: str }),
    from: int,
    to: int,
    added: list(str),
    changed: list(obj({ url: str, diff: str })),
    removed: list(str),
  }),
};

/** The `data` of each route's answer, by `METHOD /path` as the description writes paths. */
export const ROUTE_ANSWERS: Record<string, Schema> = {
  'POST /v2/login': ref('SignedIn'),
  'GET /v2/node': ref('NodeView'),
  'GET /v2/storage': ref('Storage'),
  'GET /v2/system': ref('System'),
  'GET /v2/settings': { type: 'object', additionalProperties: true },
  'GET /v2/catalog': list(ref('Catalog')),
  'POST /v2/catalog': ref('Catalog'),
  'GET /v2/catalog/cats': list(obj({ cat: str, catalogs: int })),
  'GET /v2/catalog/running': list(ref('RunningCatalog')),
  'GET /v2/catalog/schedules': list(ref('ScheduledCatalog')),
  'GET /v2/catalog/{ref}': ref('Catalog'),
  'PUT /v2/catalog/{ref}': ref('Catalog'),
  'GET /v2/catalog/{ref}/details': ref('Catalog'),
  'GET /v2/catalog/{ref}/changes': ref('Changes'),
  'GET /v2/catalog/{ref}/changes/runs': ref('ChangeRuns'),
  'GET /v2/catalog/{ref}/changes/run': ref('ChangeRun'),
  'GET /v2/catalog/{ref}/diff': ref('VersionDiff'),
  'POST /v2/catalog/{ref}/changed': obj({
    catalog: obj({ id: str, name: str }),
    recorded: list(str),
    refused: list(obj({ url: str, reason: str })),
  }),
  'GET /v2/catalog/{ref}/alerts': ref('Alerts'),
  'POST /v2/catalog/{ref}/alerts': ref('Alert'),
  'DELETE /v2/catalog/{ref}/alerts/{alert}': ref('Alert'),
  'POST /v2/crawl/{ref}': ref('JobStarted'),
  'POST /v2/crawl/{ref}/{verb}': ref('JobStarted'),
  'GET /v2/crawl/status': list(ref('JobView')),
  'GET /v2/status/{jobId}': ref('JobView'),
  'GET /v2/crawl/{ref}/reports': list(ref('ReportRow')),
  'GET /v2/crawl/{ref}/versions': list(ref('VersionRow')),
  'DELETE /v2/crawl/{ref}/versions': ref('DeleteReport'),
  'GET /v2/search': ref('SearchPage'),
  'GET /v2/search/semantic': ref('SearchPage'),
  'GET /v2/search/images': ref('SearchPage'),
  'GET /v2/resource/{id}': ref('ResourceView'),
  'POST /v2/crawl/start': ref('JobStarted'),
  'POST /v2/crawl/stop': ref('JobStarted'),
  'GET /v2/urls': ref('UrlList'),
  'GET /v2/urls/{id}': {
    allOf: [ref('UrlRow'), obj({ explanation: doc('Why it ended as it did, in one sentence.', str) })],
  },
};

interface OpenApiObject {
  paths?: Record<string, Record<string, { responses?: Record<string, Schema> }>>;
  components?: { schemas?: Record<string, Schema> };
}

/** Swagger's `transformObject`: the named shapes and, on each route listed, its answer inside the envelope. */
export const describeAnswers: SwaggerTransformObject = (documentObject) => {
  if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
  const described = documentObject.openapiObject as OpenApiObject;
  described.components = { ...described.components, schemas: { ...described.components?.schemas, ...ANSWER_SHAPES } };
  for (const [route, data] of Object.entries(ROUTE_ANSWERS)) {
    const [method, path] = route.split(' ') as [string, string];
    const op = described.paths?.[path]?.[method.toLowerCase()];
    if (!op) throw new Error(`answer-shapes: no route ${route} in the description`);
    const schema = obj({ success: bool, message: str, data });
    op.responses = {
      ...op.responses,
      200: {
        description: 'The envelope, `data` as shown (201 for a catalog created, 202 for a job started)',
        content: { 'application/json': { schema } },
      },
    };
  }
  return documentObject.openapiObject;
};
