import type { Logger } from 'pino';
import { errorMessage } from '../../errors.js';
import type { CrawlEngineDeps } from '../engine-deps.js';
import { politeFetch } from '../polite-fetch.js';

/** The most of a site's `/llms.txt` read (an index of links; the `-full` variant is never asked). */
export const LLMS_TXT_MAX_BYTES = 1024 * 1024;

/**
 * What a host's `/llms.txt` (llmstxt.org) says of its Markdown: the `.md` twins it lists, by the url of the page each
 * is the twin of, and whether the site follows the convention at all (at least one link to a `.md` on its own host):
 * then a page it does not list may have a twin too, at its url with `.md` appended (`index.html.md` for a folder).
 */
export interface LlmsTxt {
  /** The url of /llms.txt. */
  url: string;
  /** Page url (no fragment) → the url of its Markdown twin, as listed. */
  twins: Map<string, string>;
}

/** The url of a page's Markdown twin by the llms.txt convention: `.md` appended, `index.html.md` for a folder. */
export function twinUrlOf(pageUrl: string): string {
  const u = new URL(pageUrl);
  u.hash = '';
  u.search = '';
  u.pathname = u.pathname.endsWith('/') ? `${u.pathname}index.html.md` : `${u.pathname}.md`;
  return u.href;
}

/** The page a twin url stands for: `.md` taken off; `…/index.html.md` stands for the folder and its index.html. */
function pagesOfTwin(twin: URL): string[] {
  const page = new URL(twin.href);
  page.hash = '';
  page.search = '';
  page.pathname = page.pathname.replace(/\.md$/i, '');
  const out = [page.href];
  if (/\/index\.html$/i.test(page.pathname)) {
    page.pathname = page.pathname.replace(/index\.html$/i, '');
    out.push(page.href);
  }
  return out;
}

/**
 * The `.md` links of an llms.txt (Markdown: `[title](url): notes` lines under `##` sections), resolved against its own
 * url and kept on its host. Bounded: the first 10,000 links.
 */
export function parseLlmsTxt(text: string, url: string): LlmsTxt {
  const base = new URL(url);
  const twins = new Map<string, string>();
  const links = /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;
  let m: RegExpExecArray | null = links.exec(text);
  for (let i = 0; m && i < 10_000; i++, m = links.exec(text)) {
    let target: URL;
    try {
      target = new URL(m[1] as string, base);
    } catch {
      continue;
    }
    if (target.host !== base.host || !/\.md$/i.test(target.pathname)) continue;
    target.hash = '';
    for (const page of pagesOfTwin(target)) if (!twins.has(page)) twins.set(page, target.href);
  }
  return { url: base.href, twins };
}

/**
 * Each host's `/llms.txt`, read once per run (the first page of the host that has no Markdown link of its own asks),
 * under the host's politeness and robots.txt. A host without one — any answer but 200 with a text or Markdown body —
 * answers `undefined`, as does one whose llms.txt names no `.md` on its own host.
 */
export class LlmsTxtIndex {
  readonly #d: Pick<CrawlEngineDeps, 'politeness' | 'imageFetcher' | 'robots'>;
  readonly #log: Logger;
  readonly #byOrigin = new Map<string, Promise<LlmsTxt | undefined>>();

  constructor(deps: Pick<CrawlEngineDeps, 'politeness' | 'imageFetcher' | 'robots'>, log: Logger) {
    this.#d = deps;
    this.#log = log;
  }

  forHost(pageUrl: string): Promise<LlmsTxt | undefined> {
    const origin = new URL(pageUrl).origin;
    let known = this.#byOrigin.get(origin);
    if (!known) {
      known = this.#read(`${origin}/llms.txt`);
      this.#byOrigin.set(origin, known);
    }
    return known;
  }

  async #read(url: string): Promise<LlmsTxt | undefined> {
    const d = this.#d;
    if (!url.startsWith('http')) return undefined;
    try {
      if (d.robots && !(await d.robots.isAllowed(url))) return undefined;
      const r = await politeFetch(d.politeness, d.imageFetcher, url, {
        binary: true,
        maxBytes: LLMS_TXT_MAX_BYTES,
        accept: 'text/markdown, text/plain;q=0.9',
      });
      if (r.status !== 200 || !/^text\/(?:plain|(?:x-)?markdown)\b/i.test(r.contentType)) return undefined;
      const found = parseLlmsTxt(r.body.toString('utf8'), url);
      return found.twins.size > 0 ? found : undefined;
    } catch (err) {
      this.#log.debug({ url, err: errorMessage(err) }, 'llms.txt could not be read');
      return undefined;
    }
  }
}
