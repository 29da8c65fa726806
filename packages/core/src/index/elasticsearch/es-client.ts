import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Client, errors as EsErrors } from '@elastic/elasticsearch';
import type { Settings } from '../../config.js';
import { ConfigError, CrawlerError } from '../../errors.js';

/**
 * The official client's module, required on first use rather than imported with this file: every command loads the
 * composition that names this adapter, and the client (with its transport, undici 6 and apache-arrow) costs about
 * 0.4 s of CPU at start-up even where no Elasticsearch is configured.
 */
function es(): typeof import('@elastic/elasticsearch') {
  return createRequire(import.meta.url)('@elastic/elasticsearch') as typeof import('@elastic/elasticsearch');
}

/** The client's error classes (loaded with the client). */
function esErrors(): typeof EsErrors {
  return es().errors;
}

/** Settings named by the errors of the Elasticsearch adapters. */
export const ES_URL_SETTING = 'GF_ES_URL';

/** How the Elasticsearch adapters reach the server (GF_ES_*). */
export interface EsConnectionOptions {
  /** GF_ES_URL, e.g. `http://127.0.0.1:9200`. */
  url: string;
  /** GF_ES_USERNAME / GF_ES_PASSWORD: basic authentication. */
  username?: string | undefined;
  password?: string | undefined;
  /** GF_ES_API_KEY: an api key (the base64 `id:key` Elasticsearch gives); wins over user and password. */
  apiKey?: string | undefined;
  /** GF_ES_CA_FILE: PEM file of the certificate authority that signed the server's certificate. */
  caFile?: string | undefined;
  /** GF_ES_TLS_SKIP_VERIFY: accept any server certificate (a test cluster's self-signed one). */
  tlsSkipVerify?: boolean | undefined;
  /** Deadline of one request, in ms. @default 30000 */
  timeoutMs?: number | undefined;
}

/** Deadline of a delete-by-query (a whole version of a large catalog). */
export const LONG_REQUEST_MS = 600_000;

/** Deadline of the reachability check (`check`): the CLI and `serve` stop on it within seconds. */
export const ES_CHECK_TIMEOUT_MS = 5_000;

/** The official client for these options: a bounded deadline and one retry (`retries`), so nothing waits for minutes. */
export function esClient(options: EsConnectionOptions, timeoutMs = options.timeoutMs ?? 30_000, retries = 1): Client {
  let url: URL;
  try {
    url = new URL(options.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new ConfigError(ES_URL_SETTING, `"${options.url}" is not an http(s) url`, 'e.g. http://127.0.0.1:9200');
  }
  let ca: string | undefined;
  if (options.caFile) {
    try {
      ca = readFileSync(options.caFile, 'utf8');
    } catch (err) {
      throw new ConfigError('GF_ES_CA_FILE', `cannot read ${options.caFile}`, 'name a readable PEM file', err);
    }
  }
  const auth = options.apiKey
    ? { apiKey: options.apiKey }
    : options.username
      ? { username: options.username, password: options.password ?? '' }
      : undefined;
  return new (es().Client)({
    node: url.toString(),
    ...(auth ? { auth } : {}),
    tls:
      ca || options.tlsSkipVerify ? { ...(ca ? { ca } : {}), rejectUnauthorized: !options.tlsSkipVerify } : undefined,
    requestTimeout: timeoutMs,
    maxRetries: retries,
    compression: false,
  });
}

/**
 * One error in the project's terms for a failed request: nothing answering names GF_ES_URL, refused credentials
 * name GF_ES_USERNAME / GF_ES_API_KEY, anything else is a STORAGE error saying what the server said.
 */
export function esError(err: unknown, url: string, doing: string): CrawlerError {
  if (err instanceof CrawlerError) return err;
  // A deadline passed on a server that answered before is its load (or a large request), not a wrong url.
  if (err instanceof esErrors().TimeoutError && doing !== 'answer') {
    return new CrawlerError('STORAGE', `Elasticsearch at ${url} did not finish in time to ${doing}`, {
      fix: 'the server is busy or the request large: look at its load, then run the command again',
      cause: err,
    });
  }
  if (
    err instanceof esErrors().ConnectionError ||
    err instanceof esErrors().TimeoutError ||
    err instanceof esErrors().NoLivingConnectionsError
  ) {
    const why = err.message.replace(/\s+/g, ' ').slice(0, 120);
    return new ConfigError(
      ES_URL_SETTING,
      `no Elasticsearch answers at ${url} (${why})`,
      `start Elasticsearch there or set ${ES_URL_SETTING} to its url (GF_INDEX_PROVIDER=sqlite and GF_VECTOR_STORE=sqlite keep index and vectors on this machine)`,
      err,
    );
  }
  if (err instanceof esErrors().ResponseError) {
    const status = err.statusCode ?? 0;
    if (status === 401 || status === 403) {
      return new ConfigError(
        'GF_ES_USERNAME',
        `Elasticsearch at ${url} refused the credentials (HTTP ${status}) to ${doing}`,
        'set GF_ES_USERNAME and GF_ES_PASSWORD, or GF_ES_API_KEY, to an account that may write the indices',
        err,
      );
    }
    const reason = responseReason(err);
    return new CrawlerError('STORAGE', `Elasticsearch at ${url} could not ${doing}: HTTP ${status} ${reason}`, {
      fix: 'read the reason above; the server log says more',
      cause: err,
    });
  }
  if (err instanceof esErrors().ElasticsearchClientError) {
    return new CrawlerError('STORAGE', `Elasticsearch at ${url} could not ${doing}: ${err.message}`, { cause: err });
  }
  return new CrawlerError('STORAGE', `Elasticsearch at ${url} could not ${doing}: ${String(err)}`, { cause: err });
}

function responseReason(err: InstanceType<typeof EsErrors.ResponseError>): string {
  const body = err.body as { error?: { type?: string; reason?: string; root_cause?: Array<{ reason?: string }> } };
  const e = body?.error;
  if (!e) return err.message.slice(0, 200);
  return `${e.type ?? ''}: ${e.root_cause?.[0]?.reason ?? e.reason ?? ''}`.slice(0, 300);
}

/** Whether a client error is the server's 404 (an index that does not exist). */
export function isNotFound(err: unknown): boolean {
  return err instanceof esErrors().ResponseError && err.statusCode === 404;
}

/**
 * One request with a short deadline: the server answers and takes the credentials.
 * @throws ConfigError GF_ES_URL (nothing answers) or GF_ES_USERNAME (credentials refused)
 */
export async function checkEs(options: EsConnectionOptions): Promise<void> {
  const client = esClient(options, ES_CHECK_TIMEOUT_MS, 0);
  try {
    await client.info();
  } catch (err) {
    // Something answers, but not as Elasticsearch does (another server, a proxy): the url is wrong.
    if (
      err instanceof esErrors().ProductNotSupportedError ||
      (err instanceof esErrors().ResponseError && err.statusCode === 404)
    ) {
      const what =
        err instanceof esErrors().ResponseError ? `HTTP ${err.statusCode}` : 'no Elasticsearch product header';
      throw new ConfigError(
        ES_URL_SETTING,
        `what answers at ${options.url} is not Elasticsearch (${what})`,
        `set ${ES_URL_SETTING} to the url of an Elasticsearch node, e.g. http://127.0.0.1:9200`,
        err,
      );
    }
    throw esError(err, options.url, 'answer');
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * Runs `fn` and turns what the client throws into esError. Retries an answer of 429 (the server's bulk queue is
 * full: back-pressure) with a doubling wait, at most `retries` times.
 */
export async function esCall<T>(url: string, doing: string, fn: () => Promise<T>, retries = 5): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt < retries && err instanceof esErrors().ResponseError && err.statusCode === 429) {
        await new Promise((r) => setTimeout(r, Math.min(30_000, 250 * 2 ** attempt)));
        continue;
      }
      throw esError(err, url, doing);
    }
  }
}

/** The connection options of the GF_ES_* settings. */
export function esConnection(
  settings: Pick<Settings, 'esUrl' | 'esUsername' | 'esPassword' | 'esApiKey' | 'esCaFile' | 'esTlsSkipVerify'>,
): EsConnectionOptions {
  return {
    url: settings.esUrl,
    username: settings.esUsername,
    password: settings.esPassword,
    apiKey: settings.esApiKey,
    caFile: settings.esCaFile,
    tlsSkipVerify: settings.esTlsSkipVerify,
  };
}
