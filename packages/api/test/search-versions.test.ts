import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../../core/test/support/loopback.js';
import { encodePng } from '../../core/test/support/png.js';
import { type ApiFixture, openApiFixture } from './support/api-fixture.js';

interface Hit {
  id: string;
  url: string;
  version: number;
  catalog: string;
  highlights: string[];
  fetchedAt?: string;
  pictures?: Array<{ id: string }>;
  pictureUrl?: string;
}
interface Page {
  mode: string;
  results: Hit[];
  total: number;
  nextCursor: string | null;
}

/** The word each version of the site says: version 0, version 1, and the rebuild written while the test searches. */
const WORD = { old: 'amberwick', new: 'zephyrine', rebuild: 'quillmorrow' } as const;
type Phase = keyof typeof WORD;
/** Pages of the rebuild: more than one batch of the full-text layer (200), so the index holds them while it waits. */
const REBUILD_PAGES = 230;
/** Rebuild pages answered before the site holds the rest until released. */
const ANSWERED_BEFORE_HOLD = 215;

const PICTURE = encodePng(240, 160, (x, y) => [(x * 5) % 256, (y * 5) % 256, 120]);
const bin = fileURLToPath(new URL('../../shell/dist/bin.js', import.meta.url));

/**
 * A site whose text changes between crawls (one marker word per phase) and that can hold a rebuild half way: the
 * harbour catalog (`/`) and a second, smaller one (`/tech/`) for the category filter.
 */
function startVersionedSite() {
  const state = { phase: 'old' as Phase, answered: 0, release: () => {}, held: Promise.resolve() };
  const page = (title: string, body: string) =>
    `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${body}</article></body></html>`;
  const article = (n: number) => {
    const w = WORD[state.phase];
    return page(
      `Harbour notes ${n} (${w})`,
      `<p>The harbour master writes that the ${w} ferry leaves the northern pier at dawn, page ${n}.</p>` +
        `<p>Passengers bring bicycles, the ${w} lighthouse blinks twice, and the tide tables are posted weekly.</p>` +
        `<figure><img src="/img/beacon.png" alt="${w} beacon at the pier" width="240" height="160">` +
        `<figcaption>The ${w} beacon</figcaption></figure>`,
    );
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    if (path === '/') {
      const n = state.phase === 'rebuild' ? REBUILD_PAGES : 3;
      const links = Array.from({ length: n }, (_, i) => `<li><a href="/p/${i}.html">notes ${i}</a></li>`).join('');
      return html(page('Harbour', `<ul>${links}</ul>`));
    }
    const m = /^\/p\/(\d+)\.html$/.exec(path);
    if (m) {
      if (state.phase === 'rebuild' && ++state.answered > ANSWERED_BEFORE_HOLD) await state.held;
      return html(article(Number(m[1])));
    }
    if (path === '/img/beacon.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(PICTURE);
    if (path === '/tech/') return html(page('Tech', '<p><a href="/tech/a.html">a</a></p>'));
    if (path === '/tech/a.html')
      return html(page('Compilers', '<p>The amberwick compiler emits bytecode for the ferry timetable.</p>'));
    res.writeHead(404).end('not found');
  });
  return {
    state,
    async start() {
      return `http://127.0.0.1:${await listen(server)}`;
    },
    /** From now on the site says `phase`; a rebuild phase holds its answers after ANSWERED_BEFORE_HOLD pages. */
    set(phase: Phase) {
      state.phase = phase;
      state.answered = 0;
      state.held = new Promise<void>((r) => {
        state.release = r;
      });
    },
    close() {
      state.release();
      return closeServer(server);
    },
  };
}

/**
 * Paging and scope (issue 25, items 4 and 5): a kept version searched by `version`, never the rebuild being written
 * unless named; the category filter; the blank query's listing, newest fetch first; vector paging capped at 1,000.
 * One site crawled three times: version 0 (old text), version 1 (new text, published), version 2 (a rebuild held half
 * way while every mode is searched).
 */
describe('search scope: ?version=N answers from version N only, a rebuild never leaks, cat filters', () => {
  const site = startVersionedSite();
  let origin = '';
  let f: ApiFixture;
  let rebuildJob = '';
  const get = (query: string) => f.call({ method: 'GET', url: `/v2/search?${query}`, as: 'support' });
  const search = async (query: string): Promise<Page> => {
    const r = await get(query);
    expect(r.statusCode, r.body.slice(0, 400)).toBe(200);
    return r.json().data as Page;
  };
  const job = async (url: string) => {
    const r = await f.call({ method: 'POST', url, as: 'admin' });
    expect(r.statusCode, r.body).toBe(202);
    return r.json().data.jobId as string;
  };
  const ended = async (jobId: string, timeoutMs = 120_000) => {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until) {
      const j = (await f.call({ method: 'GET', url: `/v2/status/${jobId}`, as: 'support' })).json().data;
      if (j.endedAt) return j;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`job ${jobId} did not end in ${timeoutMs} ms`);
  };
  const catalogId = async () => (await f.gf.published.resolve('harbour'))?.catalogId as string;

  beforeAll(async () => {
    origin = await site.start();
    f = await openApiFixture();
    for (const [name, url, cat, outputs] of [
      ['harbour', `${origin}/`, 'news', ['file', 'index', 'vector']],
      ['compilers', `${origin}/tech/`, 'tech', ['file', 'index']],
    ] as const) {
      const created = await f.call({
        method: 'POST',
        url: '/v2/catalog',
        as: 'admin',
        payload: { name, url, settings: { intervalMs: 0, cat, outputs } },
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    expect((await ended(await job('/v2/crawl/compilers'))).state).toBe('done');
    site.set('old');
    expect((await ended(await job('/v2/crawl/harbour'))).state).toBe('done');
    site.set('new');
    expect((await ended(await job('/v2/crawl/harbour/rebuild'))).state).toBe('done');
    // Version 2: a rebuild held half way, its first batch of documents and some vectors written.
    site.set('rebuild');
    rebuildJob = await job('/v2/crawl/harbour/rebuild');
    const id = await catalogId();
    const vectors = await f.gf.factory.vectors();
    const until = Date.now() + 90_000;
    while (Date.now() < until) {
      const docs = await f.gf.factory.index().countVersion(id, 2);
      if (docs >= 200 && (await vectors.countVersion(id, 2)) > 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await f.gf.factory.index().countVersion(id, 2)).toBeGreaterThanOrEqual(200);
    expect(await vectors.countVersion(id, 2)).toBeGreaterThan(0);
  }, 240_000);

  afterAll(async () => {
    site.state.release();
    if (rebuildJob) await ended(rebuildJob).catch(() => undefined);
    await f?.close();
    await site.close();
  });

  it('answers every mode from the published version while a rebuild is being written', async () => {
    const entry = await f.gf.published.resolve('harbour');
    expect(entry?.searchVersion).toBe(1);
    for (const mode of ['words', 'meaning', 'hybrid', 'pictures'] as const) {
      for (const word of [WORD.rebuild, WORD.new, 'ferry leaves the pier']) {
        const r = await search(`q=${encodeURIComponent(word)}&catalog=harbour&mode=${mode}&size=50`);
        expect(
          r.results.every((h) => h.version === 1),
          `${mode} "${word}"`,
        ).toBe(true);
        expect(JSON.stringify(r.results)).not.toContain(WORD.rebuild);
      }
    }
    const words = await search(`q=${WORD.rebuild}&catalog=harbour&mode=words`);
    expect(words.total).toBe(0);
    const kept = await search('q=&catalog=harbour&size=50');
    expect(kept.total).toBe(4);
    expect(kept.results.every((h) => h.version === 1)).toBe(true);
  });

  it('reads a version being written only when it is named', async () => {
    const r = await search(`q=${WORD.rebuild}&catalog=harbour&mode=words&version=2&size=5`);
    // The index page of the rebuild says no marker word: every notes page of the first batch does.
    expect(r.total).toBeGreaterThanOrEqual(199);
    expect(r.results.every((h) => h.version === 2)).toBe(true);
    for (const mode of ['meaning', 'pictures'] as const) {
      const named = await search(`q=${WORD.rebuild}%20beacon&catalog=harbour&mode=${mode}&version=2&size=5`);
      expect(named.results.length, mode).toBeGreaterThan(0);
      expect(named.results.every((h) => h.version === 2)).toBe(true);
    }
  });

  it('answers ?version=0 from version 0 only, in every mode, and the default from the published one', async () => {
    const old = await search(`q=${WORD.old}&catalog=harbour&mode=words&version=0`);
    expect(old.total).toBe(3);
    expect(old.results.every((h) => h.version === 0 && h.highlights.join(' ').includes(WORD.old))).toBe(true);
    expect((await search(`q=${WORD.old}&catalog=harbour&mode=words`)).total).toBe(0);
    expect((await search(`q=${WORD.new}&catalog=harbour&mode=words`)).total).toBe(3);
    expect((await search(`q=${WORD.new}&catalog=harbour&mode=words&version=0`)).total).toBe(0);
    for (const mode of ['meaning', 'hybrid', 'pictures'] as const) {
      const r = await search(`q=${WORD.old}%20ferry&catalog=harbour&mode=${mode}&version=0&size=20`);
      expect(r.mode).toBe(mode);
      expect(r.results.length, mode).toBeGreaterThan(0);
      expect(r.results.every((h) => h.version === 0)).toBe(true);
      const text = JSON.stringify(r.results);
      expect(text).not.toContain(WORD.new);
      expect(text).not.toContain(WORD.rebuild);
    }
    const pictures = await search(`q=${WORD.old}%20beacon&catalog=harbour&mode=pictures&version=0`);
    expect(JSON.stringify(pictures.results[0])).toContain(WORD.old);
  });

  it('refuses a version without exactly one catalog, and names the stored versions of a missing one', async () => {
    const none = await get('q=ferry&version=0');
    expect(none.statusCode).toBe(400);
    expect(none.json().message).toMatch(/version 0 needs exactly one catalog.*catalog=/);
    const two = await get('q=ferry&version=0&catalog=harbour,compilers');
    expect(two.statusCode).toBe(400);
    const missing = await get('q=ferry&catalog=harbour&version=7');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toMatch(/"harbour" has no version 7.*stored versions: 0, 1/);
  });

  it('filters by category (the catalog setting), and says which categories exist', async () => {
    const tech = await search(`q=${WORD.old}&mode=words&cat=tech`);
    expect(tech.results.map((h) => h.catalog)).toEqual(['compilers']);
    const news = await search(`q=ferry&mode=words&cat=news&size=50`);
    expect(news.results.length).toBeGreaterThan(0);
    expect(news.results.every((h) => h.catalog === 'harbour')).toBe(true);
    const bogus = await get('q=ferry&cat=gossip');
    expect(bogus.statusCode).toBe(400);
    expect(bogus.json().message).toMatch(/cat "gossip" is not a category.*news/);
    const empty = await get('q=ferry&cat=travel');
    expect(empty.statusCode).toBe(404);
    expect(empty.json().message).toMatch(/categories published: news, tech/);
    // A category changed on the catalog moves it in search at once.
    const moved = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'compilers', settings: { cat: 'education' } },
    });
    expect(moved.statusCode, moved.body).toBe(200);
    expect((await search(`q=${WORD.old}&mode=words&cat=education`)).results.map((h) => h.catalog)).toEqual([
      'compilers',
    ]);
  });

  it('lists what was kept newest fetch first, with the opening text and pictures, paged by a cursor', async () => {
    const all = await search('q=&catalog=harbour&version=0&size=50');
    expect(all.total).toBe(4);
    expect(all.results.every((h) => typeof h.fetchedAt === 'string' && h.version === 0)).toBe(true);
    const times = all.results.map((h) => Date.parse(h.fetchedAt as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const notes = all.results.find((h) => h.url.endsWith('/p/1.html')) as Hit;
    expect(notes.highlights[0]).toContain(`The harbour master writes that the ${WORD.old} ferry`);
    expect((notes.highlights[0] as string).length).toBeLessThanOrEqual(401 + 40);
    expect(notes.pictures?.length).toBe(1);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 10; i++) {
      const p: Page = await search(`q=&catalog=harbour&version=0&size=1${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...p.results.map((h) => h.id));
      cursor = p.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(all.results.map((h) => h.id));
    const bad = await get('q=&catalog=harbour&cursor=12');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toMatch(/not a cursor of the listing/);
  });

  it('pages vectors by offset up to 1,000 and refuses deeper with one line naming offset', async () => {
    for (const q of [
      'q=ferry&mode=meaning&offset=1001',
      'q=ferry&mode=hybrid&cursor=5000',
      'q=ferry&mode=pictures&offset=1200',
    ]) {
      const r = await get(`${q}&catalog=harbour`);
      expect(r.statusCode, q).toBe(400);
      expect(r.json().message).toMatch(/^offset \d+ \(cursor\) is deeper than \w+ search pages: at most 1000 — /);
    }
    expect((await get('q=ferry&mode=meaning&offset=1000&catalog=harbour')).statusCode).toBe(200);
    const words = await get('q=ferry&mode=words&offset=10&catalog=harbour');
    expect(words.statusCode).toBe(400);
    expect(words.json().message).toMatch(
      /^offset 10: words search pages by cursor, not by offset — pass the nextCursor/,
    );
  });

  it('the CLI searches a kept version, and refuses a bad one in one line (exit 2)', async () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, 'search', ...args, '--data', f.tmp.path], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const ok = run(WORD.old, '--catalog', 'harbour', '--version', '0', '--mode', 'words', '--json');
    expect(ok.status, ok.stderr).toBe(0);
    const r = JSON.parse(ok.stdout) as Page;
    expect(r.total).toBe(3);
    expect(r.results.every((h) => h.version === 0)).toBe(true);
    const noCatalog = run(WORD.old, '--version', '0');
    expect(noCatalog.status).toBe(2);
    expect(noCatalog.stderr.trim().split('\n')).toHaveLength(1);
    expect(noCatalog.stderr).toMatch(/version 0 needs exactly one catalog/);
    const deep = run('ferry', '--mode', 'meaning', '--cursor', '1001', '--catalog', 'harbour');
    expect(deep.status).toBe(2);
    expect(deep.stderr).toMatch(/offset 1001 \(cursor\) is deeper/);
  });
});
