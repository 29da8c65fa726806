import type { Logger } from '../logger.js';
import { type BrowserExtractor, renderable } from './browser-extractor.js';
import type { Extractor, FetchOptions, FetchResult } from './extractor.js';
import {
  adviseRender,
  DEFAULT_RENDER_POLICY,
  noRenderMemory,
  type RenderMemory,
  type RenderObservation,
  type RenderPolicy,
} from './render-memory.js';
import { renderPattern } from './render-pattern.js';
import { type RenderingDetector, visibleTextChars } from './rendering-detector.js';

/** Options of {@link AdaptiveExtractor}. */
export interface AdaptiveExtractorOptions {
  /** What was learned per host and url pattern, across runs. @default a memory that remembers nothing */
  memory?: RenderMemory | undefined;
  /** When the memory's word is taken. @default DEFAULT_RENDER_POLICY */
  policy?: RenderPolicy | undefined;
  log?: Logger | undefined;
}

/** What the memory did in one run (the run report's `rendered.memory`). */
export interface RenderMemoryStats {
  /** Pages the RenderingDetector was asked about. */
  detected: number;
  /** Pages rendered on the memory's word, the detector not asked (`rendered.reasons.remembered`). */
  toBrowser: number;
  /** Pages kept on http on the memory's word, the detector not asked. */
  overHttp: number;
  /** Pages of a remembered pattern put to the detector again (every `recheckEvery`-th). */
  rechecked: number;
  /** Renders that found no more text than the http answer had: the page was static after all. */
  staticAfterAll: number;
}

/** Whether an extractor reports what the render memory did (the adaptive one does). */
export function hasRenderStats(e: unknown): e is { renderStats(): RenderMemoryStats } {
  return typeof (e as { renderStats?: unknown } | null)?.renderStats === 'function';
}

/** A render that found fewer new characters than this found nothing worth a browser. */
const RENDER_GAIN_CHARS = 50;

/**
 * The adaptive Extractor (seed 000: "plain http first. A browser only when what came back looks like an unrendered
 * shell"): every url is fetched over HTTP; an html 200 the RenderingDetector calls a shell is rendered by the
 * browser, with the detector's reason on the answer (`rendering`), and everything else is returned as it came.
 *
 * The render memory steers it per host and url pattern: a pattern remembered as needing the browser goes to it
 * without the detector (`rendering.reason` is `remembered`), and one remembered as static is not put to the
 * detector; either is re-checked every `recheckEvery` pages. The document itself always comes over HTTP, once: the
 * browser is served those bytes, and status, redirects, type and size are decided on them.
 */
export class AdaptiveExtractor implements Extractor {
  readonly name: string = 'adaptive';
  readonly #http: Extractor;
  readonly #browser: BrowserExtractor;
  readonly #detector: RenderingDetector;
  readonly #memory: RenderMemory;
  readonly #policy: RenderPolicy;
  readonly #log: Logger | undefined;
  readonly #pending = new Set<Promise<void>>();
  readonly #stats: RenderMemoryStats = { detected: 0, toBrowser: 0, overHttp: 0, rechecked: 0, staticAfterAll: 0 };

  /** `browser` renders; it owns `http` (its close closes both). */
  constructor(
    http: Extractor,
    browser: BrowserExtractor,
    detector: RenderingDetector,
    options: AdaptiveExtractorOptions = {},
  ) {
    this.#http = http;
    this.#browser = browser;
    this.#detector = detector;
    this.#memory = options.memory ?? noRenderMemory;
    this.#policy = options.policy ?? DEFAULT_RENDER_POLICY;
    this.#log = options.log;
    if (!Number.isInteger(this.#policy.recheckEvery) || this.#policy.recheckEvery < 1) {
      throw new TypeError('recheckEvery: an integer ≥ 1');
    }
  }

  /** What the memory did so far. */
  renderStats(): RenderMemoryStats {
    return { ...this.#stats };
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const result = await this.#http.fetch(url, options);
    if (!renderable(result)) return result;
    const u = new URL(url);
    const host = u.host;
    const pattern = renderPattern(u);
    const known = await this.#memory.get(host, pattern).catch((err: unknown) => {
      this.#log?.warn({ err, host }, 'render memory: cannot read; asking the detector');
      return undefined;
    });
    const advice = adviseRender(known, this.#policy);
    if (advice === 'http') {
      this.#stats.overHttp++;
      this.#remember(host, pattern, { needed: 'unchecked', checked: false });
      return result;
    }
    // Markup signs are ASCII: latin1 reads any charset's bytes well enough to decide, without a decode.
    const markup = () => result.text ?? result.body.toString('latin1');
    if (advice === 'render') {
      this.#stats.toBrowser++;
      const rendered = await this.#browser.render(url, result, 'remembered', options);
      this.#remember(host, pattern, { needed: this.#needed(rendered, visibleTextChars(markup())), checked: false });
      return rendered;
    }
    if (known && adviseRender(known, { ...this.#policy, recheckEvery: Number.POSITIVE_INFINITY }) !== 'detect') {
      this.#stats.rechecked++;
    }
    this.#stats.detected++;
    const decision = this.#detector.decide(markup());
    if (!decision.render) {
      this.#remember(host, pattern, { needed: 'http', checked: true });
      return result;
    }
    const rendered = await this.#browser.render(url, result, decision.reason, options);
    this.#remember(host, pattern, { needed: this.#needed(rendered, decision.textChars), checked: true });
    return rendered;
  }

  /** Whether a render was worth it: still a shell counts as needing the browser; no new text, as static after all. */
  #needed(rendered: FetchResult, httpChars: number): RenderObservation['needed'] {
    if (rendered.rendering?.outcome === 'unrendered') return 'render';
    const chars = visibleTextChars(rendered.text ?? rendered.body.toString('latin1'));
    if (chars - httpChars >= RENDER_GAIN_CHARS) return 'render';
    this.#stats.staticAfterAll++;
    return 'static';
  }

  /** Counted without holding the page (a shared store may be a network away); close() waits for it. */
  #remember(host: string, pattern: string, observation: RenderObservation): void {
    const p = this.#memory.record(host, pattern, observation).catch((err: unknown) => {
      this.#log?.warn({ err, host }, 'render memory: cannot count a page');
    });
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
  }

  /** The counts of this run written (the memory itself is the node's and stays open), then the browser closed. */
  async close(): Promise<void> {
    try {
      await Promise.all([...this.#pending]);
      await this.#memory.flush().catch((err: unknown) => {
        this.#log?.warn({ err }, 'render memory: cannot write');
      });
    } finally {
      await this.#browser.close();
    }
  }
}
