import { CrawlerError } from '../errors.js';
import type { Logger } from '../logger.js';
import { normalizePercentEncoding } from '../url/normalize.js';
import type { RobotsProvider } from './acceptor.js';

/** Bytes of a robots.txt that are parsed (RFC 9309 §2.5 asks for at least 500 KiB); the rest is ignored. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

/** One compiled Allow or Disallow line. */
export interface RobotsRule {
  readonly allow: boolean;
  /** The normalised pattern; its length is the rule's specificity. */
  readonly pattern: string;
  readonly regex: RegExp | undefined;
}

/** One group: its user agents (product tokens or `*`) and their lines. */
export interface RobotsGroup {
  readonly agents: string[];
  readonly rules: RobotsRule[];
  crawlDelaySeconds: number | undefined;
}

/**
 * The product token robots.txt groups are matched against: the leading run of letters, `_` and `-` of a user
 * agent, lowercased (`Greenfinger/0.1 (+https://…)` → `greenfinger`).
 */
export function productToken(userAgent: string): string {
  return /^[A-Za-z_-]+/.exec(userAgent.trim())?.[0]?.toLowerCase() ?? '';
}

/**
 * RFC 9309 §2.2.2: non-ASCII octets are percent-encoded, percent-encodings use uppercase hex, and encoded
 * unreserved characters are decoded, in both the rule and the url before they are compared.
 */
function normalizeRobotsPath(path: string): string {
  return normalizePercentEncoding(path.replace(/[^\x00-\x7F]+/gu, (s) => encodeURIComponent(s)));
}

function compileRule(allow: boolean, value: string): RobotsRule {
  let pattern = normalizeRobotsPath(value);
  if (!pattern.startsWith('/') && !pattern.startsWith('*')) pattern = `/${pattern}`;
  const anchored = pattern.endsWith('$');
  if (!anchored && !pattern.includes('*')) return { allow, pattern, regex: undefined };
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const re = body
    .replace(/\*+/g, '*')
    .split('*')
    .map((part) => part.replace(/[\\^$.+?()[\]{}|]/g, '\\$&'))
    .join('.*');
  return { allow, pattern, regex: new RegExp(`^${re}${anchored ? '$' : ''}`) };
}

/** The text of a pattern before its first `*` (and without a closing `$`): every path it matches starts so. */
function literalPrefix(rule: RobotsRule): string {
  const star = rule.pattern.indexOf('*');
  const head = star === -1 ? rule.pattern : rule.pattern.slice(0, star);
  return head.endsWith('$') && star === -1 ? head.slice(0, -1) : head;
}

function pathOf(urlOrPath: string): string {
  if (urlOrPath.startsWith('/')) return urlOrPath;
  const url = new URL(urlOrPath);
  return url.pathname + url.search;
}

/** The rules of robots.txt that apply to one user agent. */
export class RobotsPolicy {
  /**
   * The rules in precedence order: the longest pattern first, Allow before Disallow at equal length, so the first
   * match decides. Each with its literal prefix, checked before the regex runs.
   */
  readonly #ordered: ReadonlyArray<{ readonly rule: RobotsRule; readonly literal: string }>;
  /** Crawl-delay of the matching group(s), in milliseconds. */
  readonly crawlDelayMs: number | undefined;
  /** Sitemap urls the file names (they apply to every user agent). */
  readonly sitemaps: readonly string[];
  /** Why this policy refuses, when it is not the file's own rules (e.g. robots.txt was unreachable). */
  readonly note: string | undefined;
  /** The origin gave no HTTP answer for its robots.txt (refused, reset, timed out, no such host). */
  readonly unreachable: boolean;

  constructor(
    rules: readonly RobotsRule[],
    crawlDelayMs: number | undefined,
    sitemaps: readonly string[],
    note?: string,
    unreachable = false,
  ) {
    this.#ordered = [...rules]
      .sort((a, b) => b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow))
      .map((rule) => ({ rule, literal: literalPrefix(rule) }));
    this.crawlDelayMs = crawlDelayMs;
    this.sitemaps = sitemaps;
    this.note = note;
    this.unreachable = unreachable;
  }

  /** No rules: everything is allowed (robots.txt missing, 4xx). */
  static allowAll(): RobotsPolicy {
    return new RobotsPolicy([], undefined, []);
  }

  /** Everything but /robots.txt is disallowed (robots.txt unreachable, 5xx). */
  static disallowAll(note?: string, unreachable = false): RobotsPolicy {
    return new RobotsPolicy([compileRule(false, '/')], undefined, [], note, unreachable);
  }

  /** The number of Allow/Disallow rules in force. */
  get size(): number {
    return this.#ordered.length;
  }

  /**
   * Whether a url (absolute, or a path starting with `/`, query included) may be fetched: the matching rule with
   * the longest pattern wins, Allow wins a tie, no match allows. `/robots.txt` is always allowed.
   */
  isAllowed(urlOrPath: string): boolean {
    const path = normalizeRobotsPath(pathOf(urlOrPath));
    if (path === '/robots.txt') return true;
    for (const { rule, literal } of this.#ordered) {
      if (!path.startsWith(literal)) continue;
      if (rule.regex === undefined || rule.regex.test(path)) return rule.allow;
    }
    return true;
  }
}

/** A parsed robots.txt: every group, and the Sitemap lines. */
export class RobotsTxt {
  readonly #groups: readonly RobotsGroup[];
  readonly sitemaps: readonly string[];

  constructor(groups: readonly RobotsGroup[], sitemaps: readonly string[]) {
    this.#groups = groups;
    this.sitemaps = sitemaps;
  }

  /**
   * The policy for a user agent: every group naming its product token (case-insensitive) merged into one; when
   * none does, every `*` group merged; when there is none either, everything is allowed.
   */
  policyFor(userAgent: string): RobotsPolicy {
    const token = productToken(userAgent);
    let groups = token === '' ? [] : this.#groups.filter((g) => g.agents.includes(token));
    if (groups.length === 0) groups = this.#groups.filter((g) => g.agents.includes('*'));
    const rules = groups.flatMap((g) => g.rules);
    const delay = groups.find((g) => g.crawlDelaySeconds !== undefined)?.crawlDelaySeconds;
    return new RobotsPolicy(rules, delay === undefined ? undefined : Math.round(delay * 1000), this.sitemaps);
  }
}

function capped(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 4 || Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const head = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8');
  const lastBreak = Math.max(head.lastIndexOf('\n'), head.lastIndexOf('\r'));
  return lastBreak === -1 ? '' : head.slice(0, lastBreak);
}

/**
 * Parses robots.txt as RFC 9309 describes: groups start at one or more consecutive `User-agent` lines, `Allow` /
 * `Disallow` / `Crawl-delay` lines belong to the current group, lines before the first group are ignored, keys are
 * case-insensitive, `#` starts a comment, `Sitemap` lines are global. Only the first 500 KiB are read.
 *
 * @param text the file body
 * @param robotsUrl where it came from; a Sitemap value starting with `/` is resolved against it (the RFC asks for
 *   absolute urls; other relative values are ignored)
 */
export function parseRobotsTxt(text: string, robotsUrl?: string, maxBytes: number = ROBOTS_MAX_BYTES): RobotsTxt {
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let current: RobotsGroup | undefined;
  let inAgentLines = false;
  const body = capped(text.replace(/^\uFEFF/, ''), maxBytes);
  for (const rawLine of body.split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = (hash === -1 ? rawLine : rawLine.slice(0, hash)).trim();
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    switch (key) {
      case 'user-agent':
      case 'useragent':
      case 'user agent': {
        if (!inAgentLines || current === undefined) {
          current = { agents: [], rules: [], crawlDelaySeconds: undefined };
          groups.push(current);
        }
        inAgentLines = true;
        const agent = value.startsWith('*') ? '*' : productToken(value);
        if (agent !== '') current.agents.push(agent);
        break;
      }
      case 'allow':
      case 'disallow':
        inAgentLines = false;
        if (current !== undefined && value !== '') current.rules.push(compileRule(key === 'allow', value));
        break;
      case 'crawl-delay': {
        inAgentLines = false;
        const seconds = Number.parseFloat(value);
        if (
          current !== undefined &&
          current.crawlDelaySeconds === undefined &&
          Number.isFinite(seconds) &&
          seconds >= 0
        ) {
          current.crawlDelaySeconds = seconds;
        }
        break;
      }
      case 'sitemap':
      case 'site-map': {
        if (/\s/.test(value)) break;
        try {
          const url = robotsUrl !== undefined && value.startsWith('/') ? new URL(value, robotsUrl) : new URL(value);
          if (url.protocol === 'http:' || url.protocol === 'https:') sitemaps.push(url.href);
        } catch {
          // not a url: ignored, like any other unparseable line
        }
        break;
      }
      default:
        break;
    }
  }
  return new RobotsTxt(groups, [...new Set(sitemaps)]);
}

/** Fetches one url through the crawler's own HTTP client (redirects followed by it). */
export type RobotsFetch = (url: string) => Promise<{ status: number; text: string }>;

export interface HttpRobotsProviderOptions {
  /** The crawler's HTTP client. */
  fetch: RobotsFetch;
  /** The user agent whose product token selects the group. */
  userAgent: string;
  /**
   * What a robots.txt answering 5xx or 429, or not answering at all, means for that origin during this run.
   * RFC 9309 §2.3.1.4 asks for `disallow` (complete disallow); `allow` crawls as if there were no robots.txt.
   * @default 'disallow'
   */
  onUnreachable?: 'disallow' | 'allow';
  /** A robots.txt fetch taking longer counts as unreachable. @default 30000 */
  timeoutMs?: number;
  logger?: Logger;
}

/**
 * RobotsProvider fetching `/robots.txt` once per origin (scheme, host, port) for the life of the provider (one
 * run): concurrent requests for one origin share one fetch.
 * 2xx → parsed; 3xx left unfollowed by the fetch, 4xx (but 429) → allow all (RFC 9309 §2.3.1.3);
 * 5xx, 429, network errors and timeouts → `onUnreachable` (default disallow all, RFC 9309 §2.3.1.4).
 */
export class HttpRobotsProvider implements RobotsProvider, AsyncDisposable {
  readonly #fetch: RobotsFetch;
  readonly #userAgent: string;
  readonly #onUnreachable: 'disallow' | 'allow';
  readonly #timeoutMs: number;
  readonly #logger: Logger | undefined;
  readonly #cache = new Map<string, Promise<RobotsPolicy>>();
  #fetches = 0;

  constructor(options: HttpRobotsProviderOptions) {
    this.#fetch = options.fetch;
    this.#userAgent = options.userAgent;
    this.#onUnreachable = options.onUnreachable ?? 'disallow';
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#logger = options.logger;
  }

  /** How many robots.txt requests were made. */
  get fetchCount(): number {
    return this.#fetches;
  }

  /** The policy for url's origin, fetched on first use. */
  policy(url: string): Promise<RobotsPolicy> {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch (cause) {
      return Promise.reject(
        new CrawlerError('BAD_INPUT', `not a url: ${url}`, { cause, fix: 'pass an absolute http(s) url' }),
      );
    }
    let pending = this.#cache.get(origin);
    if (pending === undefined) {
      pending = this.#load(origin);
      this.#cache.set(origin, pending);
    }
    return pending;
  }

  async isAllowed(url: string): Promise<boolean> {
    return (await this.policy(url)).isAllowed(url);
  }

  async crawlDelayMs(url: string): Promise<number | undefined> {
    return (await this.policy(url)).crawlDelayMs;
  }

  async sitemaps(url: string): Promise<string[]> {
    return [...(await this.policy(url)).sitemaps];
  }

  async reason(url: string): Promise<string> {
    return (await this.policy(url)).note ?? 'disallowed by robots.txt';
  }

  async unreachable(url: string): Promise<boolean> {
    return (await this.policy(url)).unreachable;
  }

  async #load(origin: string): Promise<RobotsPolicy> {
    const robotsUrl = `${origin}/robots.txt`;
    const unreachable = (why: string, noAnswer = false): RobotsPolicy => {
      this.#logger?.warn({ url: robotsUrl, policy: this.#onUnreachable }, `robots.txt unreachable (${why})`);
      return this.#onUnreachable === 'disallow'
        ? RobotsPolicy.disallowAll(
            `${robotsUrl} could not be fetched (${why}), so the site counts as disallowing everything (RFC 9309)`,
            noAnswer,
          )
        : RobotsPolicy.allowAll();
    };
    let response: { status: number; text: string };
    let timer: NodeJS.Timeout | undefined;
    try {
      this.#fetches++;
      response = await Promise.race([
        this.#fetch(robotsUrl),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
          timer.unref();
        }),
      ]);
    } catch (err) {
      return unreachable(err instanceof Error ? err.message : String(err), true);
    } finally {
      clearTimeout(timer);
    }
    const { status } = response;
    if (status >= 200 && status < 300) {
      const policy = parseRobotsTxt(response.text, robotsUrl).policyFor(this.#userAgent);
      this.#logger?.debug({ url: robotsUrl, rules: policy.size }, 'robots.txt read');
      return policy;
    }
    if (status === 429 || status >= 500) return unreachable(`status ${status}`);
    this.#logger?.debug({ url: robotsUrl, status }, 'no robots.txt: everything allowed');
    return RobotsPolicy.allowAll();
  }

  /** Forgets every cached robots.txt. */
  async close(): Promise<void> {
    this.#cache.clear();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
