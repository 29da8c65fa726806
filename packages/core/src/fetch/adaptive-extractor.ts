import { type BrowserExtractor, renderable } from './browser-extractor.js';
import type { Extractor, FetchOptions, FetchResult } from './extractor.js';
import type { RenderingDetector } from './rendering-detector.js';

/**
 * The adaptive Extractor (seed 000: "plain http first. A browser only when what came back looks like an unrendered
 * shell"): every url is fetched over HTTP; an html 200 the RenderingDetector calls a shell is rendered by the
 * browser, with the detector's reason on the answer (`rendering`), and everything else is returned as it came.
 */
export class AdaptiveExtractor implements Extractor {
  readonly name: string = 'adaptive';
  readonly #http: Extractor;
  readonly #browser: BrowserExtractor;
  readonly #detector: RenderingDetector;

  /** `browser` renders; it owns `http` (its close closes both). */
  constructor(http: Extractor, browser: BrowserExtractor, detector: RenderingDetector) {
    this.#http = http;
    this.#browser = browser;
    this.#detector = detector;
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const result = await this.#http.fetch(url, options);
    if (!renderable(result)) return result;
    // Markup signs are ASCII: latin1 reads any charset's bytes well enough to decide, without a decode.
    const decision = this.#detector.decide(result.text ?? result.body.toString('latin1'));
    return decision.render ? this.#browser.render(url, result, decision.reason, options) : result;
  }

  close(): Promise<void> {
    return this.#browser.close();
  }
}
