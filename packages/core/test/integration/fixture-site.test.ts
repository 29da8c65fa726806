import { createHash } from 'node:crypto';
import { Agent, get as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, fixtureFacts, startFixtureSite } from '../support/fixture-site.js';
import { readJpegSize } from '../support/jpeg.js';
import { decodeWindows1252 } from '../support/legacy-encoding.js';
import { readPngSize } from '../support/png.js';

type Fetched = { status: number; headers: Headers; body: Buffer };

/** Node 20's TextDecoder('windows-1252') decodes 0x80..0x9F as C1 controls, hence the helper. */
const decode = (body: Buffer, charset: string) =>
  charset === 'windows-1252' ? decodeWindows1252(body) : new TextDecoder(charset).decode(body);

async function get(url: string, init: RequestInit = {}): Promise<Fetched> {
  const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(10_000), ...init });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

function agentGet(agent: Agent, url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpGet(url, { agent, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

const HREF = /\bhref="([^"]*)"/g;
const IMAGE_REFS = /<img\b[^>]*?\bsrc="([^"]+)"|\bsrcset="([^"]+)"|<meta property="og:image" content="([^"]+)"/g;

function links(html: string, base: string): string[] {
  return [...html.matchAll(HREF)]
    .map((m) => m[1]!)
    .flatMap((href) => {
      if (/^(mailto:|javascript:|#)/.test(href)) return [];
      const u = new URL(href, base);
      u.hash = '';
      return [u.href];
    });
}

function imageRefs(html: string, base: string): string[] {
  return [...html.matchAll(IMAGE_REFS)].flatMap((m) => {
    const urls = m[1] ? [m[1]] : m[2] ? m[2].split(',').map((c) => c.trim().split(/\s+/)[0]!) : [m[3]!];
    return urls.map((u) => new URL(u, base).href);
  });
}

describe('fixture site', () => {
  let site: FixtureSite;
  /** Shortest depth of every same-origin url met by a breadth-first walk from /, following robots-allowed links. */
  const depthOf = new Map<string, number>();
  /** Decoded text of every 200 HTML page met. */
  const html = new Map<string, string>();
  const pagesReferencing = new Map<string, Set<string>>();

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 200 });
    const path = (u: string) => (u.startsWith(site.origin) ? u.slice(site.origin.length) : u);
    let frontier = [site.startUrl];
    depthOf.set('/', 0);
    for (let depth = 0; frontier.length > 0 && depth < 20; depth++) {
      const next: string[] = [];
      for (const url of frontier) {
        const { status, headers, body } = await get(url);
        if (status !== 200 || !headers.get('content-type')?.startsWith('text/html')) continue;
        const charset = fixtureFacts.pages.find((p) => p.path === path(url))?.charset ?? 'utf-8';
        const text = decode(body, charset);
        html.set(path(url), text);
        for (const img of imageRefs(text, url)) {
          const set = pagesReferencing.get(path(img)) ?? new Set();
          set.add(path(url));
          pagesReferencing.set(path(img), set);
        }
        for (const link of links(text, url)) {
          const p = path(link);
          if (depthOf.has(p)) continue;
          depthOf.set(p, depth + 1);
          if (link.startsWith(site.origin) && !p.startsWith('/private/')) next.push(link);
        }
      }
      frontier = next;
    }
  }, 30_000);

  afterAll(async () => {
    await site?.close();
  });

  it('robots.txt disallows /private/ and names the sitemap', async () => {
    const { status, body } = await get(site.url('/robots.txt'));
    expect(status).toBe(200);
    const text = body.toString();
    expect(text).toMatch(/User-agent: \*\nDisallow: \/private\/\n/);
    expect(text).toContain('User-agent: BadBot\nDisallow: /\n');
    expect(text).toContain(`Sitemap: ${site.origin}/sitemap.xml`);
  });

  it('the sitemap lists the facts, and one of its pages is linked from nowhere', async () => {
    const { status, headers, body } = await get(site.url(fixtureFacts.robots.sitemap));
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/xml/);
    const locs = [...body.toString().matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toEqual(fixtureFacts.sitemapPaths.map((p) => site.url(p)));
    expect(depthOf.has('/sitemap-only.html')).toBe(false);
  });

  it('every page of the facts answers 200 with its title, phrase and depth', async () => {
    for (const page of fixtureFacts.pages) {
      const { status } = await get(site.url(page.path));
      expect(status, page.path).toBe(200);
      const text = html.get(page.path) ?? decode((await get(site.url(page.path))).body, page.charset);
      expect(text, page.path).toContain(`<title>${page.title}</title>`);
      expect(text, page.path).toContain(page.phrase);
      if (page.via === 'sitemap') expect(depthOf.has(page.path)).toBe(false);
      else expect(depthOf.get(page.path), page.path).toBe(page.depth);
    }
  });

  it('the facts list every HTML page reachable by links or the sitemap', () => {
    const walked = [...html.keys()].sort();
    const facts = fixtureFacts.pages
      .filter((p) => p.via !== 'sitemap' && !p.robotsDisallowed)
      .map((p) => p.path)
      .sort();
    expect(walked).toEqual(facts);
    expect(fixtureFacts.savedCount).toBe(23);
    expect(depthOf.get('/deep/8.html')).toBe(fixtureFacts.maxDepth);
  });

  it('every dropped url is met at its depth', () => {
    for (const d of fixtureFacts.dropped) {
      const key = d.url.startsWith('/') ? d.url : d.url.replace('{{OTHER}}', site.other.origin);
      if (d.redirectFrom) {
        expect(fixtureFacts.redirects[d.redirectFrom]?.location, d.url).toBe(d.url);
        expect(depthOf.has(key), d.url).toBe(false);
        expect(depthOf.get(d.redirectFrom), d.url).toBe(d.depth);
      } else {
        expect(depthOf.get(key), d.url).toBe(d.depth);
      }
    }
    expect(new Set(fixtureFacts.dropped.map((d) => d.url)).size).toBe(fixtureFacts.dropped.length);
  });

  it('same-a and same-b are byte-identical; near-a and near-b differ by a few words', async () => {
    const a = (await get(site.url('/same-a.html'))).body;
    const b = (await get(site.url('/same-b.html'))).body;
    expect(a.equals(b)).toBe(true);
    const words = (p: string) => html.get(p)!.split(/\s+/);
    const na = words('/near-a.html');
    const nb = words('/near-b.html');
    expect(na.length).toBe(nb.length);
    const differing = na.filter((w, i) => w !== nb[i]).length;
    expect(differing).toBeGreaterThan(0);
    expect(differing).toBeLessThanOrEqual(3);
  });

  it('redirects, loops, 404 and 500 answer as the facts say', async () => {
    for (const [path, r] of Object.entries(fixtureFacts.redirects)) {
      const res = await get(site.url(path));
      expect(res.status, path).toBe(r.status);
      expect(res.headers.get('location'), path).toBe(r.location.replace('{{OTHER}}', site.other.origin));
    }
    const followed = await fetch(site.url('/old.html'));
    expect(followed.url).toBe(site.url('/article-1.html'));
    await expect(fetch(site.url('/loop-a'))).rejects.toThrow();
    for (const [path, status] of Object.entries(fixtureFacts.statuses)) {
      expect((await get(site.url(path))).status, path).toBe(status);
    }
  });

  it('non-HTML files carry their content types and real signatures', async () => {
    const bodies = new Map<string, Buffer>();
    for (const f of fixtureFacts.nonHtml) {
      const res = await get(site.url(f.path));
      expect(res.status, f.path).toBe(200);
      expect(res.headers.get('content-type'), f.path).toBe(f.contentType);
      bodies.set(f.path, res.body);
    }
    expect(bodies.get('/docs/report.pdf')!.subarray(0, 8).toString()).toBe('%PDF-1.4');
    expect(bodies.get('/files/archive.zip')!.readUInt32LE(0)).toBe(0x04034b50);
    expect(bodies.get('/scripts/tool.py')!.toString()).toContain('def litres_per_week');
  });

  it('pictures are valid PNG/JPEG of the stated size, distinct, and referenced as stated', async () => {
    const hashes = new Set<string>();
    for (const img of fixtureFacts.images) {
      const res = await get(site.url(img.path));
      expect(res.status, img.path).toBe(200);
      expect(res.headers.get('content-type')).toBe(img.contentType);
      const size = img.contentType === 'image/png' ? readPngSize(res.body) : readJpegSize(res.body);
      expect(size, img.path).toEqual({ width: img.width, height: img.height });
      hashes.add(createHash('sha256').update(res.body).digest('hex'));
      const referencing = [...(pagesReferencing.get(img.path) ?? [])].sort();
      if (img.referencedBy[0] === '*') expect(referencing.length).toBe(html.size);
      else expect(referencing, img.path).toEqual([...img.referencedBy].sort());
    }
    expect(hashes.size).toBe(fixtureFacts.images.length);
    expect(fixtureFacts.keptImageCount).toBe(4);
    expect(fixtureFacts.keptImageRefs).toBe(5);
    const article3 = html.get('/article-3.html')!;
    expect(article3).toMatch(/<picture>\s*<source srcset="\/images\/photo-d.png"/);
    expect(article3).toContain(`<meta property="og:image" content="${site.origin}/images/og-card.png">`);
  });

  it('legacy pages are served in the charset their meta declares', async () => {
    const latin = await get(site.url('/legacy-1252.html'));
    expect(latin.headers.get('content-type')).toBe('text/html');
    expect(latin.body.includes(Buffer.from([0x80]))).toBe(true);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(latin.body)).toThrow();
    expect(latin.body.toString('latin1')).toContain('<meta charset="windows-1252">');
    expect(decodeWindows1252(latin.body)).toContain('« le jardin n’a jamais été aussi beau »');
    expect(latin.body.includes(Buffer.from('pay\xe9 85 \x80 d\x92occasion', 'latin1'))).toBe(true);
    const sjis = await get(site.url('/legacy-sjis.html'));
    expect(sjis.headers.get('content-type')).toBe('text/html');
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(sjis.body)).toThrow();
    expect(sjis.body.toString('latin1')).toContain('<meta charset="shift_jis">');
    expect(new TextDecoder('shift_jis').decode(sjis.body)).toContain('盆栽の日記');
  });

  it('pages carry ETag and Last-Modified and answer 304 to conditional requests', async () => {
    const url = site.url('/article-2.html');
    const first = await get(url);
    const etag = first.headers.get('etag')!;
    const lastModified = first.headers.get('last-modified')!;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect(Date.parse(lastModified)).toBeGreaterThan(0);
    site.clear();
    expect((await get(url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await get(url, { headers: { 'if-modified-since': lastModified } })).status).toBe(304);
    expect((await get(url, { headers: { 'if-none-match': '"other"' } })).status).toBe(200);
    expect(site.requests.map((r) => r.ifNoneMatch)).toEqual([etag, undefined, '"other"']);
    expect(site.requests.map((r) => r.status)).toEqual([304, 304, 200]);
  });

  it('mutate, addPage and removePage change the site', async () => {
    const url = site.url('/about.html');
    const before = await get(url);
    site.mutate(
      '/about.html',
      '<html><head><title>Changed</title></head><body><a href="/new.html">new</a></body></html>',
    );
    const after = await get(url, { headers: { 'if-none-match': before.headers.get('etag')! } });
    expect(after.status).toBe(200);
    expect(after.body.toString()).toContain('Changed');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(Date.parse(after.headers.get('last-modified')!)).toBeGreaterThan(
      Date.parse(before.headers.get('last-modified')!),
    );
    const ims = await get(url, { headers: { 'if-modified-since': before.headers.get('last-modified')! } });
    expect(ims.status).toBe(200);
    site.addPage(
      '/new.html',
      '<html><head><title>New</title></head><body><a href="{{ORIGIN}}/">home</a></body></html>',
    );
    const added = await get(site.url('/new.html'));
    expect(added.status).toBe(200);
    expect(added.body.toString()).toContain(`href="${site.origin}/"`);
    expect(() => site.addPage('/new.html', 'x')).toThrow(/already exists/);
    expect(() => site.mutate('/nope.html', 'x')).toThrow(/no such page/);
    site.removePage('/new.html');
    expect((await get(site.url('/new.html'))).status).toBe(404);
  });

  it('logs every request with per-path counts and reuses keep-alive connections', async () => {
    site.clear();
    await get(site.url('/article-1.html'));
    await get(site.url('/article-1.html'));
    await get(site.url('/article-3.html'), { method: 'HEAD' });
    expect(site.count('/article-1.html')).toBe(2);
    expect(site.repeated()).toEqual(['/article-1.html']);
    expect(site.repeated(['/article-1.html'])).toEqual([]);
    const [a, b, c] = site.requests;
    expect(a!.method).toBe('GET');
    expect(c!.method).toBe('HEAD');
    expect(c!.status).toBe(200);
    expect(a!.time).toBeLessThanOrEqual(b!.time);
    site.clear();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      for (let i = 0; i < 4; i++) await agentGet(agent, site.url(`/deep/${i + 1}.html`));
    } finally {
      agent.destroy();
    }
    expect(new Set(site.requests.map((r) => r.connection)).size).toBe(1);
    expect(site.other.requests.length).toBe(0);
  });

  it('the slow page waits for the configured delay', async () => {
    site.setSlowDelay(300);
    const t0 = performance.now();
    expect((await get(site.url(fixtureFacts.slowPath))).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
  });

  it('the other origin serves its pages and logs separately', async () => {
    const res = await get(`${site.other.origin}/offsite.html`);
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain(`${site.origin}/`);
    expect(site.other.count('/offsite.html')).toBe(1);
  });

  it('expectedSaved follows depth, robots, sitemap and dedup settings', () => {
    const { expectedSaved } = fixtureFacts;
    expect(expectedSaved({ depth: 0 })).toEqual(['/']);
    // Two documents (notes.txt, report.pdf) at depth 1 besides the pages.
    expect(expectedSaved({ depth: 1 })).toHaveLength(15);
    expect(expectedSaved({ depth: 1, documents: false })).toHaveLength(13);
    expect(expectedSaved({ depth: 2 })).toHaveLength(17);
    expect(expectedSaved({ robots: false })).toContain('/private/secret.html');
    expect(expectedSaved({ robots: false })).toHaveLength(24);
    expect(expectedSaved({ sitemap: false })).not.toContain('/sitemap-only.html');
    expect(expectedSaved({ contentDedup: 'simhash' })).toHaveLength(22);
    expect(fixtureFacts.savedPaths.filter((p) => p.startsWith('/same-'))).toEqual(['/same-a.html']);
  });
});

describe('fixture site lifecycle', () => {
  it('close() releases both ports and is idempotent', async () => {
    let origin: string;
    let otherOrigin: string;
    {
      await using site = await startFixtureSite();
      origin = site.origin;
      otherOrigin = site.other.origin;
      expect((await get(site.startUrl)).status).toBe(200);
    }
    await expect(fetch(origin, { signal: AbortSignal.timeout(5000) })).rejects.toThrow();
    await expect(fetch(otherOrigin, { signal: AbortSignal.timeout(5000) })).rejects.toThrow();
    const site = await startFixtureSite();
    await site.close();
    await site.close();
  });

  // The request is held 20 s; the test's 10 s timeout is the deadline close() must beat.
  it('a slow request in flight does not hold close() for the whole delay', async () => {
    const site = await startFixtureSite({ slowDelayMs: 20_000 });
    const pending = fetch(site.url('/slow.html')).catch((err: unknown) => err);
    for (const until = Date.now() + 5000; site.count('/slow.html') === 0 && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(site.count('/slow.html')).toBe(1);
    await site.close();
    expect(await pending).toBeInstanceOf(Error);
  }, 10_000);
});
