import { ConfigError, CrawlerError } from '../errors.js';

/** How an embedding endpoint is asked: the deadline of one request and the retries after a 429, a 5xx or a timeout. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  /** The first backoff; each retry doubles it. */
  baseMs: number;
  /** The longest wait between two attempts, Retry-After included. */
  maxWaitMs: number;
  /** The deadline of one attempt (connect, headers and body). */
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 4, baseMs: 500, maxWaitMs: 30_000, timeoutMs: 30_000 };

/** 429 and every 5xx are worth another try; any other answer is final. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * The wait before retry number `attempt` (1 = the first retry): the answer's Retry-After when it gives one (seconds,
 * or an HTTP date, read against `now`), else `baseMs · 2^(attempt−1)`; never more than `maxWaitMs`, never negative.
 */
export function retryDelayMs(
  attempt: number,
  retryAfter: string | null | undefined,
  policy: Pick<RetryPolicy, 'baseMs' | 'maxWaitMs'>,
  now: number = Date.now(),
): number {
  const bound = (ms: number) => Math.max(0, Math.min(policy.maxWaitMs, Math.round(ms)));
  const header = retryAfter?.trim();
  if (header) {
    if (/^\d+(\.\d+)?$/.test(header)) return bound(Number(header) * 1000);
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return bound(at - now);
  }
  return bound(policy.baseMs * 2 ** Math.max(0, attempt - 1));
}

/** What one attempt gives back. */
export interface EndpointAnswer {
  status: number;
  retryAfter: string | null;
  body: string;
}

/** One POST; `signal` ends it at the deadline. Injected so the retry loop is tested without a network. */
export type PostJson = (
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
) => Promise<EndpointAnswer>;

/** The fetch of Node as a PostJson. */
export const fetchPost: PostJson = async (url, body, headers, signal) => {
  const res = await fetch(url, { method: 'POST', body, headers, signal });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
};

/** Connection errors: nothing listens, the name does not resolve, the peer went away. */
function networkCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

export interface PostOptions {
  policy: RetryPolicy;
  /** The setting the url came from, named when nothing answers there. @default GF_EMBEDDING_URL */
  urlSetting?: string;
  /** true: a connection refused (or a name that does not resolve) fails at once instead of being retried. */
  failFastOnConnect?: boolean;
  post?: PostJson;
  sleep?: (ms: number) => Promise<void>;
  /** Told of each retry (a log line). */
  onRetry?: (attempt: number, waitMs: number, why: string) => void;
}

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * POST a JSON body and return the 2xx answer's text. 429, 5xx, a timeout and a dropped connection are retried with
 * backoff (Retry-After honoured, every wait bounded by `maxWaitMs`), at most `retries` times.
 * @throws ConfigError naming the url's setting when nothing answers there (or naming GF_EMBEDDING_API_KEY on 401/403,
 *   GF_EMBEDDING_MODEL and the url on 404); CrawlerError EMBEDDING for any other final answer
 */
export async function postWithRetry(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<string> {
  const { policy } = options;
  const setting = options.urlSetting ?? 'GF_EMBEDDING_URL';
  const post = options.post ?? fetchPost;
  const sleep = options.sleep ?? sleepMs;
  const text = JSON.stringify(body);
  const all = { 'content-type': 'application/json', accept: 'application/json', ...headers };
  let why = '';
  for (let attempt = 0; attempt <= policy.retries; attempt++) {
    let answer: EndpointAnswer | undefined;
    const signal = AbortSignal.timeout(policy.timeoutMs);
    try {
      answer = await post(url, text, all, signal);
    } catch (err) {
      const code = networkCode(err);
      if (signal.aborted || (err as Error).name === 'TimeoutError') {
        why = `no answer within ${policy.timeoutMs} ms`;
      } else if (code && CONNECT_CODES.has(code) && options.failFastOnConnect) {
        throw new ConfigError(
          setting,
          `nothing answers at ${url} (${code})`,
          `start the endpoint or correct ${setting}`,
          err,
        );
      } else if (code) {
        why = `${code} from ${url}`;
      } else {
        throw new CrawlerError('EMBEDDING', `the embedding request to ${url} failed: ${(err as Error).message}`, {
          cause: err,
        });
      }
    }
    if (answer) {
      if (answer.status >= 200 && answer.status < 300) return answer.body;
      const said = answer.body.replace(/\s+/g, ' ').trim().slice(0, 200);
      if (answer.status === 401 || answer.status === 403) {
        throw new ConfigError(
          'GF_EMBEDDING_API_KEY',
          `${url} answered ${answer.status} ${said}`,
          'set the key the endpoint expects',
        );
      }
      if (answer.status === 404) {
        throw new ConfigError(
          setting,
          `${url} answered 404 ${said}`,
          `check ${setting} (ollama: http://host:11434, openai: http://host/v1) and GF_EMBEDDING_MODEL`,
        );
      }
      if (!isRetryableStatus(answer.status)) {
        throw new CrawlerError('EMBEDDING', `${url} answered ${answer.status} ${said}`, {
          fix: 'check GF_EMBEDDING_MODEL and the endpoint’s log',
        });
      }
      why = `${answer.status} ${said}`.trim();
    }
    if (attempt === policy.retries) break;
    const wait = retryDelayMs(attempt + 1, answer?.retryAfter, policy);
    options.onRetry?.(attempt + 1, wait, why);
    await sleep(wait);
  }
  throw new CrawlerError('EMBEDDING', `${url} failed ${policy.retries + 1} times, last: ${why}`, {
    fix: `check the endpoint at ${setting}, or raise GF_EMBEDDING_RETRIES / GF_EMBEDDING_TIMEOUT_MS`,
  });
}
