import { ConfigError, CrawlerError } from '../../errors.js';

/** Settings named by the errors of the Qdrant family. */
export const QDRANT_URL_SETTING = 'GF_QDRANT_URL';
export const QDRANT_KEY_SETTING = 'GF_QDRANT_API_KEY';

const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** The HTTP status of a client error, when the server answered. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The network code (ECONNREFUSED…) somewhere down the cause chain, when nothing answered. */
export function networkCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return code;
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError' || name === 'AbortError' || name === 'QdrantClientTimeoutError') return 'ETIMEDOUT';
    e = (e as { cause?: unknown }).cause;
  }
  // fetch's own refusal (a port fetch never dials, a malformed host): no code, only its cause's message.
  if (err instanceof TypeError && err.message === 'fetch failed') {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? cause.message : 'fetch failed';
  }
  return undefined;
}

/**
 * One error in the project's terms for a failed Qdrant request: nothing answering names GF_QDRANT_URL, a refused key
 * names GF_QDRANT_API_KEY, anything else is a STORAGE error naming the collection and what the server said.
 */
export function qdrantError(err: unknown, url: string, doing: string): CrawlerError {
  if (err instanceof CrawlerError) return err;
  const code = networkCode(err);
  if (code) {
    return new ConfigError(
      QDRANT_URL_SETTING,
      `no Qdrant answers at ${url} (${code})`,
      `start Qdrant there or set ${QDRANT_URL_SETTING} to its url (e.g. http://127.0.0.1:6333); GF_VECTOR_STORE=sqlite keeps vectors on this machine`,
      err,
    );
  }
  const status = statusOf(err);
  if (status === 401 || status === 403) {
    return new ConfigError(
      QDRANT_KEY_SETTING,
      `Qdrant at ${url} refused the key (HTTP ${status})`,
      `set ${QDRANT_KEY_SETTING} to an api key of that server`,
      err,
    );
  }
  const said = detailOf(err);
  return new CrawlerError(
    'STORAGE',
    `Qdrant at ${url} failed to ${doing}${status ? ` (HTTP ${status})` : ''}: ${said}`,
    {
      cause: err,
      fix: 'check the server log; GF_VECTOR_STORE=sqlite keeps vectors on this machine',
    },
  );
}

function detailOf(err: unknown): string {
  const data = (err as { data?: { status?: { error?: unknown } } } | null)?.data;
  const fromServer = data?.status?.error;
  if (typeof fromServer === 'string') return fromServer;
  return err instanceof Error ? err.message : String(err);
}
