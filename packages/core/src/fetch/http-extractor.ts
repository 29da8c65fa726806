import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createUnzip } from 'node:zlib';
import type { Agent, Dispatcher } from 'undici';
import type { Settings } from '../config.js';
import { FetchError, type FetchFailureReason } from '../errors.js';
import { normalizeUrl } from '../url/normalize.js';
import { decodeBody, detectCharset } from './charset.js';
import { contentKind } from './content-type.js';
import type { DnsCache } from './dns-cache.js';
import type { Extractor, FetchOptions, FetchResult } from './extractor.js';

/** Options of {@link HttpExtractor}. Timeouts, caps and the User-Agent come from the node settings. */
export interface HttpExtractorOptions {
  settings: Pick<Settings, 'userAgent' | 'timeoutMs' | 'maxBodyBytes' | 'maxRedirects'> &
    Partial<Pick<Settings, 'minBytesPerSecond' | 'slowBodyGraceMs'>>;
  /** Keep-alive connections per origin. @default 8 */
  connectionsPerOrigin?: number | undefined;
  /** Idle keep-alive sockets are closed after this. @default 10000 */
  keepAliveTimeoutMs?: number | undefined;
  /**
   * The one deadline of a request: connect, headers and the whole body, redirects included (a body still arriving
   * then is given up). @default settings.timeoutMs (GF_TIMEOUT_MS)
   */
  totalTimeoutMs?: number | undefined;
  /** Extra headers sent with every request. */
  headers?: Record<string, string> | undefined;
  /**
   * How a new connection finds its host's address, in the shape of `dns.lookup`: the node's DnsCache (`lookup`) in a
   * crawl. @default the system lookup on every new connection
   */
  lookup?: DnsCache['lookup'] | undefined;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const ACCEPT_PAGE = 'text/html,application/xhtml+xml,application/xml;q=0.9,text/plain;q=0.8,*/*;q=0.5';

/**
 * Stop reading a body we do not want. undici's body stream emits an AbortError when destroyed, so a listener
 * must be there first or the process dies of an unhandled 'error' event.
 */
function abandon(body: { on(event: 'error', fn: () => void): unknown; destroy(): unknown }): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Whether a Content-Type is markup or text worth reading (html, xhtml, xml, text/*); see {@link contentKind}. */
export { isMarkupType } from './content-type.js';

/** Transport failure codes worth another attempt. ENOTFOUND / bad certificates / aborts are not. */
const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

function errorCode(err: unknown): string {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code !== 'UND_ERR') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return '';
}

/**
 * undici, required when the first extractor is made rather than imported with the module: a command that fetches
 * nothing (search, list, status…) does not pay its loading at start-up (about a tenth of a second of CPU).
 */
function undiciAgent(options: Agent.Options): Agent {
  const { Agent: AgentClass } = createRequire(import.meta.url)('undici') as typeof import('undici');
  return new AgentClass(options);
}

/** undici's errors for an answer that breaks HTTP/1.1 (they carry no code of their own). */
const PROTOCOL_ERRORS = new Set(['HTTPParserError', 'ResponseContentLengthMismatchError', 'InformationalError']);

function errorNames(err: unknown): string[] {
  const names: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const name = (e as { name?: unknown }).name;
    if (typeof name === 'string') names.push(name);
    e = (e as { cause?: unknown }).cause;
  }
  return names;
}

/** The reason of a transport failure that is neither a cancel, a timeout nor ENOTFOUND: its code, else its kind. */
function reasonOf(code: string, err: unknown): FetchFailureReason {
  if (code === 'ECONNREFUSED') return 'connection-refused';
  if (code === 'EAI_AGAIN') return 'dns';
  if (['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'].includes(code)) {
    return 'connection-reset';
  }
  if (/^ERR_TLS_|^ERR_SSL_|CERT|SELF_SIGNED|SIGNATURE/.test(code)) return 'tls';
  if (code.startsWith('HPE_') || code.includes('CONTENT_LENGTH_MISMATCH')) return 'protocol';
  if (errorNames(err).some((n) => PROTOCOL_ERRORS.has(n))) return 'protocol';
  return 'network';
}

/** How often a body's average rate is checked against GF_MIN_BYTES_PER_SECOND. */
const RATE_CHECK_MS = 250;

/**
 * The deadline of one request, and the minimum rate of its body: either aborts the request's signal with the
 * FetchError (reason 'timeout') the fetch then throws, so the caller's host slot is given back at once.
 * A deadline met before the headers is worth another try (the server may be busy); a body that is still
 * arriving at the deadline, or arrives slower than the minimum rate, is not (a slow-loris server would hold the
 * slot again for as long).
 */
class RequestClock {
  readonly #controller = new AbortController();
  readonly #started = performance.now();
  readonly #deadline: NodeJS.Timeout;
  #rate: NodeJS.Timeout | undefined;
  #bodyStart = 0;
  #bodyBytes = 0;
  url: string;

  constructor(
    url: string,
    readonly budgetMs: number,
    readonly minBytesPerSecond: number,
    readonly graceMs: number,
  ) {
    this.url = url;
    this.#deadline = setTimeout(() => this.#expire(), budgetMs);
    this.#deadline.unref();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The FetchError the clock aborted the request with, if it did. */
  get failure(): FetchError | undefined {
    const s = this.#controller.signal;
    return s.aborted && s.reason instanceof FetchError ? s.reason : undefined;
  }

  /** The headers arrived: from now on the body is metered. */
  startBody(): void {
    this.#bodyStart = performance.now();
    if (this.minBytesPerSecond <= 0 || this.#rate) return;
    this.#rate = setInterval(() => this.#checkRate(), Math.min(RATE_CHECK_MS, this.graceMs));
    this.#rate.unref();
  }

  /** Body bytes as they arrive off the wire (before decompression). */
  count(bytes: number): void {
    this.#bodyBytes += bytes;
  }

  stop(): void {
    clearTimeout(this.#deadline);
    if (this.#rate) clearInterval(this.#rate);
  }

  #expire(): void {
    const inBody = this.#bodyStart > 0;
    const where = inBody ? `its body still arriving (${this.#bodyBytes} bytes so far)` : 'before its headers';
    this.#abort(
      new FetchError(
        `fetch of ${this.url} timed out after ${this.budgetMs} ms, ${where}; GF_TIMEOUT_MS is the deadline of the whole request`,
        { reason: 'timeout', retryable: !inBody },
      ),
    );
  }

  #checkRate(): void {
    const elapsed = performance.now() - this.#bodyStart;
    if (elapsed < this.graceMs) return;
    const rate = (this.#bodyBytes * 1000) / elapsed;
    if (rate >= this.minBytesPerSecond) return;
    this.#abort(
      new FetchError(
        `body of ${this.url} too slow: ${this.#bodyBytes} bytes in ${(elapsed / 1000).toFixed(1)} s, under ` +
          `GF_MIN_BYTES_PER_SECOND=${this.minBytesPerSecond} (after GF_SLOW_BODY_GRACE_MS=${this.graceMs})`,
        { reason: 'timeout', retryable: false },
      ),
    );
  }

  #abort(err: FetchError): void {
    this.stop();
    if (!this.#controller.signal.aborted) this.#controller.abort(err);
  }

  get elapsedMs(): number {
    return performance.now() - this.#started;
  }
}

function toFetchError(err: unknown, url: string, signal: AbortSignal | undefined, clock: RequestClock): FetchError {
  if (signal?.aborted) {
    return new FetchError(`fetch of ${url} was cancelled`, { reason: 'aborted', retryable: false, cause: err });
  }
  const timedOut = clock.failure;
  if (timedOut) return timedOut;
  if (err instanceof FetchError) return err;
  const code = errorCode(err);
  const what = err instanceof Error ? err.message : String(err);
  if (code === 'ENOTFOUND') {
    return new FetchError(`host of ${url} not found (DNS ENOTFOUND); check the url`, {
      reason: 'dns',
      retryable: false,
      cause: err,
    });
  }
  if (code.includes('TIMEOUT') || code === 'ETIMEDOUT') {
    return new FetchError(`fetch of ${url} timed out (${code}); raise GF_TIMEOUT_MS if the site is slow`, {
      reason: 'timeout',
      retryable: true,
      cause: err,
    });
  }
  return new FetchError(`fetch of ${url} failed: ${code || what}`, {
    reason: reasonOf(code, err),
    retryable: RETRYABLE_CODES.has(code),
    cause: err,
  });
}

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? v.join(k.toLowerCase() === 'set-cookie' ? '\n' : ', ') : v;
  }
  return out;
}

function decoderFor(encoding: string): NodeJS.ReadWriteStream | null {
  const enc = encoding.trim().toLowerCase();
  if (enc === 'gzip' || enc === 'x-gzip' || enc === 'deflate') return createUnzip();
  if (enc === 'br') return createBrotliDecompress();
  return null;
}

/** Read a stream fully, destroying it and throwing a non-retryable 'too large' FetchError past `cap` bytes. */
async function readCapped(
  stream: AsyncIterable<Buffer> & { destroy(err?: Error): unknown },
  cap: number,
  url: string,
  onChunk?: (bytes: number) => void,
) {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += chunk.length;
    onChunk?.(chunk.length);
    if (size > cap) {
      stream.destroy();
      throw new FetchError(`body of ${url} too large: more than ${cap} bytes; raise GF_MAX_BODY_BYTES to keep it`, {
        reason: 'too-large',
        retryable: false,
      });
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/**
 * Plain HTTP extractor on undici: one shared keep-alive Agent (no pipelining), manual redirects with loop
 * detection, gzip/deflate/br, a streamed size cap, conditional GET, and an early stop on non-markup pages
 * (the body is not downloaded; the result carries the content type and an empty body).
 *
 * Redirects: up to `maxRedirects` are followed and recorded in `redirects`; a loop or a longer chain throws a
 * non-retryable FetchError. With `maxRedirects: 0` nothing is followed: the 3xx answer is returned as a result
 * (its target in `headers.location`), so the caller can treat the target as a url of its own.
 */
export class HttpExtractor implements Extractor {
  readonly name = 'http';
  private readonly agent: Agent;
  private readonly settings: HttpExtractorOptions['settings'];
  private readonly totalTimeoutMs: number;
  private readonly extraHeaders: Record<string, string>;

  constructor(options: HttpExtractorOptions) {
    this.settings = options.settings;
    const t = options.settings.timeoutMs;
    this.totalTimeoutMs = options.totalTimeoutMs ?? t;
    this.extraHeaders = options.headers ?? {};
    this.agent = undiciAgent({
      connections: options.connectionsPerOrigin ?? 8,
      pipelining: 1,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 10_000,
      headersTimeout: t,
      bodyTimeout: t,
      connect: options.lookup ? { timeout: t, lookup: options.lookup } : { timeout: t },
    });
  }

  async fetch(url: string, options: FetchOptions = {}): Promise<FetchResult> {
    const clock = new RequestClock(
      url,
      this.totalTimeoutMs,
      this.settings.minBytesPerSecond ?? 1024,
      this.settings.slowBodyGraceMs ?? 3000,
    );
    const signal = options.signal ? AbortSignal.any([options.signal, clock.signal]) : clock.signal;
    const redirects: string[] = [];
    const visited = new Set<string>();
    const maxRedirects = options.maxRedirects ?? this.settings.maxRedirects;
    let current: URL;
    try {
      current = new URL(url);
    } catch (err) {
      throw new FetchError(`cannot fetch ${url}: not a valid url`, {
        reason: 'invalid-url',
        retryable: false,
        cause: err,
      });
    }
    try {
      for (;;) {
        if (current.protocol !== 'http:' && current.protocol !== 'https:') {
          throw new FetchError(`cannot fetch ${current.href}: only http and https are supported`, {
            reason: 'invalid-url',
            retryable: false,
          });
        }
        visited.add(current.href);
        clock.url = current.href;
        const res = await this.agent.request({
          origin: current.origin,
          path: current.pathname + current.search,
          method: options.method ?? 'GET',
          headers: this.requestHeaders(options),
          signal,
        });
        const location = res.headers.location;
        if (REDIRECT_STATUSES.has(res.statusCode) && location && maxRedirects > 0) {
          await res.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          const next = new URL(Array.isArray(location) ? location[0]! : location, current);
          next.hash = '';
          if (visited.has(next.href)) {
            throw new FetchError(`redirect loop: ${[...visited, next.href].join(' -> ')}`, {
              reason: 'redirect-loop',
              retryable: false,
              status: res.statusCode,
            });
          }
          if (redirects.length >= maxRedirects) {
            throw new FetchError(
              `too many redirects (more than ${maxRedirects}) from ${url}; raise GF_MAX_REDIRECTS if intended`,
              { reason: 'too-many-redirects', retryable: false, status: res.statusCode },
            );
          }
          redirects.push(normalizeUrl(current.href) ?? current.href);
          current = next;
          continue;
        }
        return await this.readResponse(res, normalizeUrl(current.href) ?? current.href, redirects, options, clock);
      }
    } catch (err) {
      throw toFetchError(err, current.href, options.signal, clock);
    } finally {
      clock.stop();
    }
  }

  private requestHeaders(options: FetchOptions): Record<string, string> {
    const h: Record<string, string> = {
      'user-agent': this.settings.userAgent,
      accept: options.accept ?? (options.binary ? '*/*' : ACCEPT_PAGE),
      'accept-encoding': 'gzip, deflate, br',
      ...this.extraHeaders,
    };
    if (options.etag) h['if-none-match'] = options.etag;
    if (options.lastModified) h['if-modified-since'] = options.lastModified;
    return h;
  }

  private async readResponse(
    res: Dispatcher.ResponseData,
    finalUrl: string,
    redirects: string[],
    options: FetchOptions,
    clock: RequestClock,
  ): Promise<FetchResult> {
    const headers = flattenHeaders(res.headers);
    const contentType = headers['content-type'] ?? '';
    const base = {
      finalUrl,
      redirects,
      status: res.statusCode,
      contentType,
      headers,
      etag: headers.etag ?? null,
      lastModified: headers['last-modified'] ?? null,
    };
    const kind = contentKind(contentType);
    const markup = kind !== 'other';
    const documentCap = options.document?.(contentType, finalUrl);
    const wanted = options.binary || documentCap !== undefined || (options.pagesOnly ? kind === 'page' : markup);
    const empty = res.statusCode === 304 || res.statusCode === 204 || options.method === 'HEAD';
    if (empty || !wanted) {
      if (empty) await res.body.dump().catch(() => undefined);
      else abandon(res.body);
      return { ...base, charset: '', body: Buffer.alloc(0), elapsedMs: clock.elapsedMs };
    }
    const cap = documentCap ?? options.maxBytes ?? this.settings.maxBodyBytes;
    const declared = Number(headers['content-length']);
    const decoder = decoderFor(headers['content-encoding'] ?? '');
    if (!decoder && Number.isFinite(declared) && declared > cap) {
      abandon(res.body);
      throw new FetchError(
        `body of ${finalUrl} too large: ${declared} bytes declared, cap ${cap}; raise GF_MAX_BODY_BYTES`,
        {
          reason: 'too-large',
          retryable: false,
          status: res.statusCode,
        },
      );
    }
    let body: Buffer;
    clock.startBody();
    if (decoder) {
      const source = res.body as unknown as Readable;
      source.on('data', (chunk: Buffer) => clock.count(chunk.length));
      source.on('error', (err) => (decoder as unknown as Readable).destroy(err));
      source.pipe(decoder as unknown as NodeJS.WritableStream);
      try {
        body = await readCapped(decoder as unknown as Readable, cap, finalUrl);
      } catch (err) {
        abandon(source);
        if (err instanceof FetchError || errorCode(err).startsWith('UND_ERR') || clock.failure) throw err;
        throw new FetchError(`body of ${finalUrl} could not be decompressed: ${(err as Error).message}`, {
          reason: 'decoding',
          retryable: false,
          status: res.statusCode,
          cause: err,
        });
      }
    } else {
      body = await readCapped(res.body, cap, finalUrl, (n) => clock.count(n));
    }
    const result: FetchResult = { ...base, charset: '', body, elapsedMs: 0 };
    if (markup && options.decode === false) {
      result.charset = detectCharset(body, contentType).charset;
    } else if (markup) {
      const decoded = decodeBody(body, contentType);
      result.charset = decoded.charset;
      result.text = decoded.text;
    }
    result.elapsedMs = clock.elapsedMs;
    return result;
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
