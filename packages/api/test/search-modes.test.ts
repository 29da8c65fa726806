import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

interface Hit {
  id: string;
  url: string;
  score: number;
  highlights: string[];
}
interface Page {
  mode: string;
  match?: string;
  results: Hit[];
  total: number;
  nextCursor: string | null;
  note?: string;
}

/** Poll a job until it ends (bounded). */
async function ended(f: ApiFixture, jobId: string, timeoutMs = 90_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const job = (await f.call({ method: 'GET', url: `/v2/status/${jobId}`, as: 'support' })).json().data;
    if (job.endedAt) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} did not end in ${timeoutMs} ms`);
}

/**
 * The search modes over the API, on one crawl of the fixture site into two catalogs: `garden` with every output
 * (text vectors by the bundled model) and `words-only`, one page without vectors.
 */
describe('GET /v2/search: hybrid by default with vectors, words without; detail pages first, switchable', () => {
  let site: FixtureSite;
  let f: ApiFixture;
  const search = async (query: string): Promise<Page> => {
    const r = await f.call({ method: 'GET', url: `/v2/search?${query}`, as: 'support' });
    expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
    return r.json().data as Page;
  };
  const path = (h: Hit) => new URL(h.url).pathname;

  beforeAll(async () => {
    site = await startFixtureSite();
    f = await openApiFixture();
    // words-only keeps one page: the catalog's url is the article itself.
    for (const [name, url, outputs] of [
      ['garden', `${site.origin}/`, ['file', 'index', 'vector']],
      ['words-only', `${site.origin}/article-3.html`, ['file', 'index']],
    ] as const) {
      const created = await f.call({
        method: 'POST',
        url: '/v2/catalog',
        as: 'admin',
        payload: { name, url, settings: { intervalMs: 0, outputs } },
      });
      expect(created.statusCode, created.body).toBe(201);
      const started = await f.call({ method: 'POST', url: `/v2/crawl/${name}`, as: 'admin' });
      expect(started.statusCode, started.body).toBe(202);
      expect((await ended(f, started.json().data.jobId)).state).toBe('done');
    }
  }, 180_000);
  afterAll(async () => {
    await f?.close();
    await site?.close();
  });

  it('answers hybrid when no mode is asked and the catalog has vectors, one result per page, and says so', async () => {
    const hybrid = await search('q=compost%20heap&catalog=garden');
    expect(hybrid.mode).toBe('hybrid');
    const ids = hybrid.results.map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(hybrid.results.slice(0, 3).map(path)).toContain('/article-3.html');
    expect(hybrid.results[0]?.highlights[0]).toMatch(/<em>/);
    // Meaning adds pages that hold none of the words: hybrid answers at least what words does.
    const words = await search('q=compost%20heap&catalog=garden&mode=words');
    expect(words.mode).toBe('words');
    expect(hybrid.results.length).toBeGreaterThanOrEqual(words.results.length);
    expect(hybrid.total).toBeGreaterThanOrEqual(words.total);
  });

  it('pages hybrid by offset without repeating a page', async () => {
    const first = await search('q=watering%20the%20garden&catalog=garden&mode=hybrid&size=3');
    expect(first.results).toHaveLength(3);
    expect(first.nextCursor).toBe('3');
    const second = await search(`q=watering%20the%20garden&catalog=garden&mode=hybrid&size=3&cursor=3`);
    const seen = new Set(first.results.map((h) => h.id));
    expect(second.results.length).toBeGreaterThan(0);
    expect(second.results.some((h) => seen.has(h.id))).toBe(false);
  });

  it('answers words for a catalog without vectors, and says why when hybrid is asked for', async () => {
    const auto = await search('q=compost%20heap&catalog=words-only');
    expect(auto.mode).toBe('words');
    const asked = await search('q=compost%20heap&catalog=words-only&mode=hybrid');
    expect(asked.mode).toBe('words');
    expect(asked.note).toMatch(/no text vectors.*words alone/);
    expect(asked.results.map((h) => h.id)).toEqual(auto.results.map((h) => h.id));
  });

  it('ranks the article above the listing unless preferDetailPages=false', async () => {
    const ratio = (p: Page) => {
      const article = p.results.find((h) => path(h) === '/article-3.html');
      const listing = p.results.find((h) => path(h) === '/articles.html');
      expect(article && listing, JSON.stringify(p.results.map(path))).toBeTruthy();
      return (article as Hit).score / (listing as Hit).score;
    };
    const q = 'q=compost%20heap&catalog=garden&mode=words';
    const preferred = ratio(await search(q));
    const plain = ratio(await search(`${q}&preferDetailPages=false`));
    expect(preferred).toBeGreaterThan(plain * 1.5);
    const hybrid = await search('q=compost%20heap&catalog=garden&preferDetailPages=false');
    expect(hybrid.mode).toBe('hybrid');
  });

  it('answers pictures one per picture, as mode=pictures and /v2/search/images, and gives pages their pictures', async () => {
    const viaMode = await search('q=cherry%20tomatoes%20vine&catalog=garden&mode=pictures');
    const r = await f.call({
      method: 'GET',
      url: '/v2/search/images?q=cherry%20tomatoes%20vine&catalog=garden',
      as: 'support',
    });
    expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
    const images = r.json().data as Page;
    for (const answer of [viaMode, images]) {
      expect(answer.mode).toBe('pictures');
      const pics = answer.results as unknown as Array<Hit & { pictureUrl: string; pages: Array<{ url: string }> }>;
      const urls = pics.map((h) => new URL(h.pictureUrl).pathname);
      expect(urls[0]).toBe('/images/photo-a.png');
      expect(new Set(urls).size).toBe(urls.length);
      expect(pics[0]).toMatchObject({ width: 200, height: 150, file: expect.stringMatching(/\.png$/) });
      // One picture on two pages is one result that names both.
      expect(pics[0]?.pages.map((p) => new URL(p.url).pathname).sort()).toEqual(['/article-1.html', '/article-2.html']);
    }
    for (const mode of ['words', 'meaning', 'hybrid']) {
      const pages = (await search(`q=cherry%20tomatoes&catalog=garden&mode=${mode}`)).results as unknown as Array<
        Hit & { pictures: Array<{ id: string; url: string }> }
      >;
      const article = pages.find((h) => path(h) === '/article-1.html');
      expect(
        article?.pictures.map((p) => new URL(p.url).pathname),
        mode,
      ).toContain('/images/photo-a.png');
      for (const h of pages) expect(new Set(h.pictures.map((p) => p.id)).size, mode).toBe(h.pictures.length);
    }
  });

  it('answers pictures like one by ?like=, and refuses it with a 404 or 400 naming like', async () => {
    const tomatoes = (await search('q=cherry%20tomatoes%20vine&catalog=garden&mode=pictures')).results[0] as Hit & {
      imageId: string;
    };
    const call = (url: string) => f.call({ method: 'GET', url, as: 'support' });
    const r = await call(`/v2/search/images?like=${tomatoes.id}&catalog=garden`);
    expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
    const like = r.json().data as Page & { likeBy: string; likeOf: Hit };
    expect(like).toMatchObject({ mode: 'pictures', likeBy: 'caption meaning', likeOf: { id: tomatoes.id } });
    expect(like.results.length).toBeGreaterThan(0);
    expect(like.results.map((h) => h.id)).not.toContain(tomatoes.id);
    // No mode: like makes it a pictures search.
    expect((await search(`like=${tomatoes.imageId}&catalog=garden`)).mode).toBe('pictures');
    const unknown = await call('/v2/search/images?like=nope&catalog=garden');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().message).toMatch(/^like: no picture "nope"/);
    const words = (await search('q=compost&catalog=words-only&mode=pictures')).results[0] as Hit;
    for (const [url, field] of [
      [`/v2/search/images?like=${tomatoes.id}&q=tomatoes&catalog=garden`, /^q and like together/],
      [`/v2/search?like=${tomatoes.id}&mode=words&catalog=garden`, /^like: .*not mode words/],
      [`/v2/search/images?like=${words.id}&catalog=words-only`, /^like: .* holds no picture vectors/],
    ] as const) {
      const bad = await call(url);
      expect(bad.statusCode, `${url}: ${bad.body}`).toBe(400);
      expect(bad.json().message).toMatch(field);
    }
  });

  it('reads a words query of four words or more as a question, and says how words matched', async () => {
    const question = await search('q=how%20to%20build%20a%20compost%20heap&catalog=garden&mode=words');
    expect(question).toMatchObject({ mode: 'words', match: 'question' });
    expect(question.results.slice(0, 3).map(path)).toContain('/article-3.html');
    const all = await search('q=how%20to%20build%20a%20compost%20heap&catalog=garden&mode=words&match=all');
    expect(['all', 'any']).toContain(all.match);
    expect(all.total).toBeLessThanOrEqual(question.total);
    expect((await search('q=compost%20heap&catalog=garden&mode=words')).match).toBe('all');
    // A question's pages: by its own cursor, none twice.
    const first = await search('q=how%20to%20build%20a%20compost%20heap&catalog=garden&mode=words&size=2');
    expect(first.nextCursor).not.toBeNull();
    const second = await search(
      `q=how%20to%20build%20a%20compost%20heap&catalog=garden&mode=words&size=2&cursor=${first.nextCursor}`,
    );
    const ids = [...first.results, ...second.results].map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses a bad mode, preferDetailPages or offset with one 400 naming the field', async () => {
    for (const [query, field] of [
      ['q=x&mode=sound', /mode/],
      ['q=x&preferDetailPages=maybe', /preferDetailPages/],
      ['q=x&mode=hybrid&cursor=1001', /offset 1001|cursor/],
      ['q=x&mode=hybrid&cursor=two', /cursor/],
      ['q=x&mode=words&match=some', /match/],
    ] as const) {
      const r = await f.call({ method: 'GET', url: `/v2/search?${query}&catalog=garden`, as: 'support' });
      expect(r.statusCode, `${query}: ${r.body}`).toBe(400);
      expect(r.json().message, query).toMatch(field);
    }
  });
});
