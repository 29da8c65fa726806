import type { Browser, BrowserContext, Page, Request, Route } from 'playwright-core';
import { FetchError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Extractor, FetchOptions, FetchResult, Rendering } from './extractor.js';
import type { Pacer } from './politeness.js';
import { pssKb } from './process-memory.js';
import { createRenderingDetector, type RenderingDetector } from './rendering-detector.js';

/** A scroll step waits this long for new content (on a busy machine 1 s once cut an infinite list short). */
const WAIT_GROWTH = { timeout: 2000, polling: 100 };

/** Chromium's switches for a crawler: headless, nothing of its own on the network, no first-run work. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
];

export interface BrowserExtractorOptions {
  /** The Chromium to drive; nothing is ever downloaded. @default '/usr/bin/chromium' */
  executablePath?: string | undefined;
  /** Pages open at once, over every host. @default 2 */
  maxPages?: number | undefined;
  /** Pages one browser renders before it is closed and a fresh one launched (memory). @default 100 */
  recycleAfter?: number | undefined;
  /**
   * Memory ceiling of one browser, in MiB: the proportional set size of all its processes, read after a page at most
   * once per `memoryCheckMs`. Above it the browser is recycled like after `recycleAfter` pages. 0 = no ceiling.
   * @default 1024
   */
  maxMemoryMb?: number | undefined;
  /** The least time between two memory reads of one browser. @default 1000 */
  memoryCheckMs?: number | undefined;
  /** Navigation: the document's `load` event. @default 15000 */
  navigationTimeoutMs?: number | undefined;
  /** The wait for the network to go quiet after `load`; a page still busy goes on. @default 3000 */
  idleTimeoutMs?: number | undefined;
  /** The wait for text after network idle (a page filled by a timer); past it the page is `unrendered`. @default 5000 */
  settleTimeoutMs?: number | undefined;
  /** Scrolls to the bottom, each waiting up to 1 s for the page to grow (infinite scroll, bounded). @default 3 */
  maxScrolls?: number | undefined;
  /** Hosts (host:port) besides the page's own its requests may reach; everything else is refused. @default [] */
  allowHosts?: readonly string[] | undefined;
  /**
   * The run's politeness, for the page's own requests (its scripts, its data): to each host one at a time per page,
   * each after the host's interval since the last request start — inside the slot the page holds (see `Pacer`).
   * Without it (the pool alone, outside a crawl) they are not spaced.
   */
  pacer?: Pacer | undefined;
  /** Decides whether the rendered page is still a shell; its `minTextChars` is the text the settle wait waits for. */
  detector?: RenderingDetector | undefined;
  /** Text at which the settle wait ends. @default 200 */
  minTextChars?: number | undefined;
  userAgent?: string | undefined;
  log?: Logger | undefined;
}

interface Live {
  browser: Browser;
  contexts: Map<string, Promise<BrowserContext>>;
  served: number;
  open: number;
  retiring: boolean;
  checkedAt: number;
}

/**
 * The browser Extractor: the page is fetched over HTTP by `http` (status, redirects, content type, size caps and
 * politeness stay those of any page), and an html answer with status 200 is rendered in Chromium — its document
 * served to the browser from the bytes already fetched, so the host sees one request for it — and returned as the
 * rendered DOM. A pool bounds the pages open at once, keeps one context per host, and recycles the browser after
 * `recycleAfter` pages. `close()` closes every browser; so does the process ending (playwright's exit hook).
 */
export class BrowserExtractor implements Extractor {
  readonly name: string = 'browser';
  readonly #http: Extractor;
  readonly #o: Required<Omit<BrowserExtractorOptions, 'userAgent' | 'log' | 'detector' | 'pacer'>>;
  readonly #pacer: Pacer | undefined;
  readonly #detector: RenderingDetector;
  readonly #userAgent: string | undefined;
  readonly #log: Logger | undefined;
  #current: Promise<Live> | undefined;
  readonly #all = new Set<Promise<Live>>();
  #free: number;
  readonly #waiters: (() => void)[] = [];
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Browsers launched so far. */
  launched = 0;
  /** The most pages that were open at once. */
  peakOpen = 0;
  /** The most memory one browser was seen to hold (MiB, proportional set size); 0 until first read. */
  peakMemoryMb = 0;
  /** Browsers retired, by why: after `recycleAfter` pages, or above `maxMemoryMb`. */
  readonly recycled = { pages: 0, memory: 0 };

  constructor(http: Extractor, options: BrowserExtractorOptions = {}) {
    this.#http = http;
    this.#o = {
      executablePath: options.executablePath ?? '/usr/bin/chromium',
      maxPages: options.maxPages ?? 2,
      recycleAfter: options.recycleAfter ?? 100,
      maxMemoryMb: options.maxMemoryMb ?? 1024,
      memoryCheckMs: options.memoryCheckMs ?? 1000,
      navigationTimeoutMs: options.navigationTimeoutMs ?? 15000,
      idleTimeoutMs: options.idleTimeoutMs ?? 3000,
      settleTimeoutMs: options.settleTimeoutMs ?? 5000,
      maxScrolls: options.maxScrolls ?? 3,
      allowHosts: options.allowHosts ?? [],
      minTextChars: options.minTextChars ?? 200,
    };
    if (!Number.isInteger(this.#o.maxPages) || this.#o.maxPages < 1) throw new TypeError('maxPages: an integer ≥ 1');
    if (!Number.isInteger(this.#o.recycleAfter) || this.#o.recycleAfter < 1) {
      throw new TypeError('recycleAfter: an integer ≥ 1');
    }
    this.#detector = options.detector ?? createRenderingDetector({ minTextChars: this.#o.minTextChars });
    this.#userAgent = options.userAgent;
    this.#log = options.log;
    this.#pacer = options.pacer;
    this.#free = this.#o.maxPages;
  }

  /** Over HTTP, then every html 200 rendered (`reason` always). */
  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const result = await this.#http.fetch(url, options);
    return renderable(result) ? this.render(url, result, 'always', options) : result;
  }

  /** Render a page already fetched over HTTP; the answer is `fetched` with the rendered DOM as its body. */
  async render(url: string, fetched: FetchResult, reason: string, options: FetchOptions = {}): Promise<FetchResult> {
    const release = await this.#slot(options.signal);
    const started = performance.now();
    let live: Live | undefined;
    let page: Page | undefined;
    const blocked = { count: 0 };
    const turns = this.#pacer ? new PageTurns(this.#pacer, Math.max(1000, this.#o.idleTimeoutMs)) : undefined;
    try {
      live = await this.#lease();
      const host = new URL(url).host;
      const context = await this.#context(live, host);
      page = await context.newPage();
      if (turns) {
        page.on('requestfinished', (r) => turns.finished(r));
        page.on('requestfailed', (r) => turns.finished(r));
      }
      let served = false;
      await page.route('**/*', (route) => {
        const request = route.request();
        if (!served && request.isNavigationRequest() && request.url() === fetched.finalUrl) {
          served = true;
          return route.fulfill({ status: fetched.status, headers: documentHeaders(fetched), body: fetched.body });
        }
        // Pictures, video and fonts add no text; the crawl fetches the rendered page's pictures itself.
        if (SKIPPED_TYPES.has(request.resourceType())) return refuse(route, blocked);
        const target = this.#target(request.url(), host);
        if (target === undefined) return refuse(route, blocked);
        if (target === '' || !turns) return route.continue().catch(() => undefined);
        return turns.take(target, request, () => route.continue());
      });
      await page.goto(fetched.finalUrl, { waitUntil: 'domcontentloaded', timeout: this.#o.navigationTimeoutMs });
      await page.waitForLoadState('load', { timeout: this.#o.navigationTimeoutMs }).catch(() => undefined);
      await page.waitForLoadState('networkidle', { timeout: this.#o.idleTimeoutMs }).catch(() => undefined);
      const enough = await page
        .waitForFunction(
          `(document.body?.innerText ?? '').replace(/\\s+/g, ' ').trim().length >= ${this.#o.minTextChars}`,
          undefined,
          { timeout: this.#o.settleTimeoutMs, polling: 100 },
        )
        .then(
          () => true,
          () => false,
        );
      if (enough) await this.#scroll(page);
      const html = await page.content();
      const outcome = enough || !this.#detector.decide(html).render ? 'rendered' : 'unrendered';
      const rendering: Rendering = {
        reason,
        outcome,
        ms: Math.round(performance.now() - started),
        blocked: blocked.count,
      };
      const body = Buffer.from(html, 'utf8');
      return {
        ...fetched,
        headers: { ...fetched.headers, 'content-type': 'text/html; charset=utf-8' },
        contentType: 'text/html; charset=utf-8',
        charset: 'utf-8',
        body,
        text: options.decode === false ? undefined : html,
        rendering,
      };
    } catch (err) {
      if (err instanceof FetchError) throw err;
      throw new FetchError(`render ${url}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`, {
        reason: 'network',
        retryable: false,
        cause: err,
      });
    } finally {
      turns?.close();
      await page?.close().catch(() => undefined);
      if (live) await this.#checkMemory(live);
      if (live) this.#unlease(live);
      release();
    }
  }

  /** Close every browser, then the fetcher. Idempotent: a second call waits for the first. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) w();
    const all = [...this.#all];
    this.#current = undefined;
    await Promise.all(
      all.map(async (p) => {
        const live = await p.catch(() => undefined);
        if (live) await closeLive(live);
      }),
    );
    await this.#http.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The host a request of the page goes to, `''` for one off the network (data:, blob:), undefined if refused. */
  #target(raw: string, host: string): string | undefined {
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      return undefined;
    }
    if (u.protocol === 'data:' || u.protocol === 'blob:') return '';
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return u.host === host || this.#o.allowHosts.includes(u.host) ? u.host : undefined;
  }

  /** Scrolls to the bottom up to maxScrolls times while the page grows (WAIT_GROWTH for each step). */
  async #scroll(page: Page): Promise<void> {
    for (let i = 0; i < this.#o.maxScrolls; i++) {
      // Strings, not functions: core is compiled without the DOM types.
      const height = Number(
        await page.evaluate('window.scrollTo(0, document.body.scrollHeight), document.body.scrollHeight'),
      );
      const grew = await page.waitForFunction(`document.body.scrollHeight > ${height}`, undefined, WAIT_GROWTH).then(
        () => true,
        () => false,
      );
      if (!grew) return;
    }
  }

  async #slot(signal: AbortSignal | undefined): Promise<() => void> {
    while (this.#free === 0 && !this.#closed) {
      if (signal?.aborted) throw new FetchError('render aborted', { reason: 'aborted', retryable: false });
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
    if (this.#closed) throw new FetchError('the browser extractor is closed', { reason: 'aborted', retryable: false });
    this.#free--;
    this.peakOpen = Math.max(this.peakOpen, this.#o.maxPages - this.#free);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#free++;
      this.#waiters.shift()?.();
    };
  }

  async #lease(): Promise<Live> {
    for (;;) {
      if (this.#closed) {
        throw new FetchError('the browser extractor is closed', { reason: 'aborted', retryable: false });
      }
      if (!this.#current) {
        const launching = this.#launch();
        this.#current = launching;
        this.#all.add(launching);
        launching.catch(() => {
          this.#all.delete(launching);
          if (this.#current === launching) this.#current = undefined;
        });
      }
      const current = this.#current;
      const live = await current;
      if (live.retiring || !live.browser.isConnected()) {
        // Retired (pages, memory) or gone: the next page goes to a fresh browser.
        if (this.#current === current) this.#current = undefined;
        continue;
      }
      live.served++;
      live.open++;
      if (live.served >= this.#o.recycleAfter) {
        // New pages go to a fresh browser; this one closes when its last page does.
        live.retiring = true;
        this.recycled.pages++;
        if (this.#current === current) this.#current = undefined;
      }
      return live;
    }
  }

  /** Above the memory ceiling, the browser is retired (it closes when its last page does). */
  async #checkMemory(live: Live): Promise<void> {
    if (this.#o.maxMemoryMb <= 0 || live.retiring || this.#closed) return;
    const now = performance.now();
    if (now - live.checkedAt < this.#o.memoryCheckMs) return;
    live.checkedAt = now;
    const mb = await browserMemoryMb(live.browser).catch(() => 0);
    this.peakMemoryMb = Math.max(this.peakMemoryMb, Math.round(mb));
    if (mb > this.#o.maxMemoryMb && !live.retiring) {
      live.retiring = true;
      this.recycled.memory++;
      this.#log?.info(
        { memoryMb: Math.round(mb), ceilingMb: this.#o.maxMemoryMb },
        'browser recycled above its memory',
      );
    }
  }

  #unlease(live: Live): void {
    live.open--;
    if (live.retiring && live.open === 0) {
      for (const p of this.#all) {
        void p.then((l) => {
          if (l === live) this.#all.delete(p);
        });
      }
      void closeLive(live);
    }
  }

  async #launch(): Promise<Live> {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: this.#o.executablePath,
      headless: true,
      args: CHROMIUM_ARGS,
      // Signals are the crawl's to handle: its close path closes the browsers (Ctrl-C stops a crawl gracefully).
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: this.#o.navigationTimeoutMs,
    });
    this.launched++;
    const live: Live = {
      browser,
      contexts: new Map(),
      served: 0,
      open: 0,
      retiring: false,
      checkedAt: Number.NEGATIVE_INFINITY,
    };
    browser.on('disconnected', () => {
      live.retiring = true;
      for (const p of this.#all) void p.then((l) => l === live && this.#all.delete(p));
      void this.#current?.then((l) => {
        if (l === live) this.#current = undefined;
      });
    });
    this.#log?.info({ executablePath: this.#o.executablePath, launched: this.launched }, 'browser launched');
    if (this.#closed) {
      await closeLive(live);
      throw new FetchError('the browser extractor is closed', { reason: 'aborted', retryable: false });
    }
    return live;
  }

  #context(live: Live, host: string): Promise<BrowserContext> {
    let context = live.contexts.get(host);
    if (!context) {
      context = live.browser.newContext({
        acceptDownloads: false,
        serviceWorkers: 'block',
        ...(this.#userAgent ? { userAgent: this.#userAgent } : {}),
      });
      live.contexts.set(host, context);
    }
    return context;
  }
}

/** An html answer with status 200 (what is worth rendering). */
export function renderable(r: FetchResult): boolean {
  // A HEAD answer (the metadata pass) has no body to render.
  return r.status === 200 && r.body.length > 0 && /^\s*(?:text\/html|application\/xhtml\+xml)/i.test(r.contentType);
}

function documentHeaders(r: FetchResult): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(r.headers)) {
    const key = k.toLowerCase();
    if (key === 'content-encoding' || key === 'content-length' || key === 'transfer-encoding') continue;
    if (key === 'set-cookie' || key === 'content-disposition') continue;
    headers[key] = v;
  }
  headers['content-type'] = r.contentType || 'text/html';
  return headers;
}

/** Resource types a rendered page is not given: they add no text (the crawl fetches the pictures it keeps). */
const SKIPPED_TYPES = new Set(['image', 'media', 'font']);

/**
 * The turns of one page's requests under the run's politeness: to each host one request at a time, each started
 * after `pacer.pace` (the host's interval since its last request start, pages' and subresources' alike). A request
 * holds its turn until it finishes or fails, or `turnMs` passed (a long poll does not hold the page's other
 * requests for ever). `close()` ends every wait (the page is done).
 */
class PageTurns {
  readonly #pacer: Pacer;
  readonly #turnMs: number;
  readonly #tails = new Map<string, Promise<void>>();
  readonly #open = new Map<Request, () => void>();
  readonly #done = new AbortController();

  constructor(pacer: Pacer, turnMs: number) {
    this.#pacer = pacer;
    this.#turnMs = turnMs;
  }

  async take(host: string, request: Request, go: () => Promise<void>): Promise<void> {
    const before = this.#tails.get(host) ?? Promise.resolve();
    let end!: () => void;
    const mine = new Promise<void>((resolve) => {
      end = resolve;
    });
    const tail = before.then(() => mine);
    this.#tails.set(host, tail);
    void tail.then(() => {
      if (this.#tails.get(host) === tail) this.#tails.delete(host);
    });
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      if (timer) clearTimeout(timer);
      this.#open.delete(request);
      end();
    };
    try {
      await before;
      if (this.#done.signal.aborted) throw this.#done.signal.reason;
      await this.#pacer.pace(host, this.#done.signal);
      timer = setTimeout(finish, this.#turnMs);
      timer.unref();
      this.#open.set(request, finish);
      await go();
    } catch {
      // The page closed while this request waited, or the request could not go on: its turn ends.
      finish();
    }
  }

  /** A request finished or failed: the next one of its host may start. */
  finished(request: Request): void {
    this.#open.get(request)?.();
  }

  close(): void {
    this.#done.abort(new Error('the page is closed'));
    for (const finish of [...this.#open.values()]) finish();
  }
}

async function refuse(route: Route, blocked: { count: number }): Promise<void> {
  blocked.count++;
  await route.abort('blockedbyclient').catch(() => undefined);
}

/** The proportional set size of every process of a browser (CDP names them), in MiB. */
async function browserMemoryMb(browser: Browser): Promise<number> {
  const session = await browser.newBrowserCDPSession();
  try {
    const info = (await session.send('SystemInfo.getProcessInfo')) as { processInfo: { id: number }[] };
    return info.processInfo.reduce((a, p) => a + pssKb(p.id), 0) / 1024;
  } finally {
    await session.detach().catch(() => undefined);
  }
}

async function closeLive(live: Live): Promise<void> {
  await live.browser.close().catch(() => undefined);
}
