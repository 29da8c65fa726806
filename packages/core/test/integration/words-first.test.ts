import { fileURLToPath } from 'node:url';
import {
  type Catalog,
  createEmbeddingClient,
  type EmbeddingClient,
  Greenfinger,
  type PublishedCatalog,
  type RunReport,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureFacts } from '../support/fixture-facts.js';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { eventually, GatedEmbeddingClient } from '../support/gated-embedding.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
/** Small chunks, so every fixture page has several and a page can be searchable before it is complete. */
const settings = { intervalMs: 0, threads: 4, hostConcurrency: 4 };

/**
 * Words before meaning (issue 18): a crawl publishes words search when its fetch ends while its vectors are still
 * being written (held here at a gate the test opens), and meaning search never gets worse meanwhile.
 */
describe('words search before the vectors are written', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let tiny: EmbeddingClient;
  let gate: GatedEmbeddingClient;
  let gf: Greenfinger;

  const entry = async (catalogId: string): Promise<PublishedCatalog | undefined> =>
    (await gf.published.list()).find((c) => c.catalogId === catalogId);
  const catalogOf = async (url: string): Promise<Catalog> => {
    const found = (await (await gf.catalogs()).list()).find((c) => c.url === url);
    if (!found) throw new Error(`no catalog ${url}`);
    return found;
  };
  /** A crawl started and not awaited, with the catalog it writes once the registry shows it published for words. */
  const crawlUntilWords = async (req: Parameters<Greenfinger['crawler']['crawl']>[0], url: string, version = 0) => {
    const running = gf.crawler.crawl(req);
    running.catch(() => undefined);
    const catalog = await eventually(async () => {
      const c = (await (await gf.catalogs()).list()).find((x) => x.url === url);
      const e = c ? await entry(c.id) : undefined;
      return c && e && e.searchVersion === version ? c : undefined;
    });
    return { running, catalog };
  };
  const word = 'balconies';

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-words-first-');
    tiny = await createEmbeddingClient({ modelDir, textModel: 'tiny-e5' }, { inProcess: true });
    gate = new GatedEmbeddingClient(tiny);
    gf = await Greenfinger.open({
      settings: { dataStore: tmp.path, workers: 1, chunkSize: 100, chunkOverlap: 0, maxChunks: 6 },
      components: { embeddingClient: gate },
    });
  }, 60_000);

  afterAll(async () => {
    gate?.open();
    await gf?.close();
    await tiny?.close();
    await site?.close();
    tmp?.remove();
  });

  it('answers words while the vectors are held, and meaning from the pages embedded so far, saying so', async () => {
    gate.hold();
    const url = `${site.origin}/`;
    const { running, catalog } = await crawlUntilWords({ url: site.origin, startUrl: url, settings }, url);
    // Published for words: every saved page is found by its words already.
    const words = await gf.search.search({ q: word, catalogs: [catalog.id] });
    expect(words.results.length).toBeGreaterThan(0);
    expect(words.embedding).toBeUndefined();
    const published = await entry(catalog.id);
    expect(published?.meaningVersion).toBeUndefined();
    expect(published?.embedding).toMatchObject({ version: 0, pages: fixtureFacts.savedCount, embedded: 0 });
    const none = await gf.search.search({ q: 'a garden with tomatoes', mode: 'meaning', catalogs: [catalog.id] });
    expect(none.embedding).toMatchObject({ pages: fixtureFacts.savedCount, embedded: 0 });
    expect(none.results).toEqual([]);

    // One batch through: the first chunk of the page(s) in it; the registry's counts follow within a second or so.
    gate.allow(1);
    const partial = await eventually(async () => {
      const e = await entry(catalog.id);
      return e?.embedding && e.embedding.embedded > 0 ? e.embedding : undefined;
    });
    expect(partial.embedded).toBeLessThan(fixtureFacts.savedCount);
    const some = await gf.search.search({ q: 'a garden with tomatoes', mode: 'meaning', catalogs: [catalog.id] });
    expect(some.results.length).toBeGreaterThan(0);
    expect(some.embedding).toMatchObject({ pages: fixtureFacts.savedCount, catalogs: [catalog.name] });
    expect(some.embedding?.embedded).toBeLessThan(fixtureFacts.savedCount);
    const [v0] = await gf.versions.list({ id: catalog.id });
    expect(v0?.search).toMatchObject({ words: true, meaning: true, embedding: { pages: fixtureFacts.savedCount } });

    gate.open();
    const report: RunReport = await running;
    expect(report.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(report.produced.vectored).toBe(report.produced.saved);
    const t = report.searchable;
    expect(t?.wordsAfterMs).toBeGreaterThan(0);
    expect(t?.meaningAfterMs).toBeGreaterThanOrEqual(t?.wordsAfterMs ?? 0);
    expect(t?.completeAfterMs).toBeGreaterThanOrEqual(t?.meaningAfterMs ?? 0);
    expect(report.embedding).toMatchObject({ pages: fixtureFacts.savedCount, embedded: fixtureFacts.savedCount });
    expect((await entry(catalog.id))?.embedding).toBeUndefined();
    const all = await gf.search.search({ q: 'a garden with tomatoes', mode: 'meaning', catalogs: [catalog.id] });
    expect(all.embedding).toBeUndefined();
    expect(all.results.length).toBeGreaterThan(0);
    expect((await gf.versions.list({ id: catalog.id }))[0]?.search).toEqual({
      words: true,
      meaning: true,
      embedding: null,
    });
  }, 120_000);

  it('a rebuild answers meaning from the previous complete version until its own vectors are complete', async () => {
    const catalog = await catalogOf(`${site.origin}/`);
    gate.hold();
    const { running } = await crawlUntilWords({ id: catalog.id, action: 'rebuild', settings }, catalog.url, 1);
    const words = await gf.search.search({ q: word, catalogs: [catalog.id] });
    expect(words.results.length).toBeGreaterThan(0);
    expect(words.results.every((h) => h.version === 1)).toBe(true);
    const meaning = await gf.search.search({ q: 'a garden with tomatoes', mode: 'meaning', catalogs: [catalog.id] });
    expect(meaning.results.length).toBeGreaterThan(0);
    expect(meaning.results.every((h) => h.version === 0)).toBe(true);
    // The previous version is complete: no notice, and it is kept (never pruned) while it answers.
    expect(meaning.embedding).toBeUndefined();
    expect(await entry(catalog.id)).toMatchObject({ searchVersion: 1, meaningVersion: 0, embedding: { version: 1 } });
    const versions = await gf.versions.list({ id: catalog.id });
    expect(versions.map((v) => [v.version, v.search.words, v.search.meaning])).toEqual([
      [0, false, true],
      [1, true, false],
    ]);
    const tight = { ...catalog, searchVersion: 1, indexVersion: 1, settings: { ...catalog.settings, maxVersions: 1 } };
    expect(await gf.versions.pruneTargets(tight)).toEqual([]);

    gate.open();
    const report = await running;
    expect(report.ending.published).toBe(true);
    const after = await gf.search.search({ q: 'a garden with tomatoes', mode: 'meaning', catalogs: [catalog.id] });
    expect(after.results.every((h) => h.version === 1)).toBe(true);
    const e = await entry(catalog.id);
    expect(e?.searchVersion).toBe(1);
    expect(e?.meaningVersion).toBeUndefined();
    expect(e?.embedding).toBeUndefined();
  }, 120_000);

  it('a stop during the vector phase keeps words published; resume writes the vectors left and fetches nothing', async () => {
    gate.hold();
    const url = site.url('/deep/');
    const stop = new AbortController();
    const startUrl = site.url('/deep/1.html');
    const running = gf.crawler.crawl({ url, startUrl, name: 'deep', settings, signal: stop.signal });
    running.catch(() => undefined);
    const catalog = await eventually(async () => {
      const c = (await (await gf.catalogs()).list()).find((x) => x.url === url);
      return c && (await entry(c.id))?.searchVersion === 0 ? c : undefined;
    });
    gate.allow(1);
    await eventually(async () => ((await entry(catalog.id))?.embedding?.embedded ?? 0) > 0 || undefined);
    stop.abort();
    const stopped = await running;
    expect(stopped.ending).toMatchObject({ reason: 'interrupted', published: false });
    expect(stopped.searchable?.wordsAfterMs).not.toBeNull();
    expect(stopped.searchable?.completeAfterMs).toBeNull();
    expect(stopped.ending.note).toMatch(/words search reads v0 .*run resume to write the rest/);
    expect(stopped.produced.vectored).toBeLessThan(stopped.produced.saved);
    const held = await entry(catalog.id);
    expect(held).toMatchObject({ searchVersion: 0, embedding: { version: 0, pages: stopped.produced.saved } });
    expect(held?.embedding?.complete).toBeLessThan(stopped.produced.saved);
    // Words still answer; meaning answers from what was written, and says so.
    expect((await gf.search.search({ q: 'soil', catalogs: [catalog.id] })).results.length).toBeGreaterThan(0);
    const partial = await gf.search.search({ q: 'what soil is made of', mode: 'meaning', catalogs: [catalog.id] });
    expect(partial.embedding?.pages).toBe(stopped.produced.saved);

    gate.open();
    site.clear();
    const resumed = await gf.crawler.crawl({ id: catalog.id, action: 'resume' });
    expect(site.requests).toEqual([]);
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(resumed.produced.saved).toBe(stopped.produced.saved);
    expect(resumed.produced.vectored).toBe(resumed.produced.saved);
    expect(resumed.ending.gaps).toBeUndefined();
    expect((await entry(catalog.id))?.embedding).toBeUndefined();
    const complete = await gf.search.search({ q: 'what soil is made of', mode: 'meaning', catalogs: [catalog.id] });
    expect(complete.embedding).toBeUndefined();
    expect(complete.results.length).toBeGreaterThan(0);
  }, 120_000);
});
