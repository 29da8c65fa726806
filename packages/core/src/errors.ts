/**
 * One error class with a closed set of codes. Every message names the problem and the fix.
 */
export const CRAWLER_ERROR_CODES = [
  'CONFIG',
  'BAD_INPUT',
  'NOT_FOUND',
  'CONFLICT',
  'FETCH',
  'STAGE',
  'STORAGE',
  'CORRUPT',
  'EMBEDDING',
  'CLUSTER',
] as const;

/** The closed set of codes; `error-table.ts` maps each to an HTTP status and an exit code. */
export type CrawlerErrorCode = (typeof CRAWLER_ERROR_CODES)[number];

export class CrawlerError extends Error {
  readonly code: CrawlerErrorCode;
  /** Optional hint telling the user how to fix it. */
  readonly fix: string | undefined;
  constructor(code: CrawlerErrorCode, message: string, options: { cause?: unknown; fix?: string } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CrawlerError';
    this.code = code;
    this.fix = options.fix;
  }
  /** One line for a terminal: the problem, then the fix. */
  toLine(): string {
    return this.fix ? `${this.message} — ${this.fix}` : this.message;
  }
}

/** A setting or option is wrong; `field` names it. */
export class ConfigError extends CrawlerError {
  readonly field: string;
  constructor(field: string, message: string, fix?: string, cause?: unknown) {
    super('CONFIG', `${field}: ${message}`, { fix, cause });
    this.name = 'ConfigError';
    this.field = field;
  }
}

/** Why a fetch failed, as the extractor tells it apart: the engine decides an outcome from this, never from text. */
export const FETCH_FAILURE_REASONS = [
  /** The caller cancelled it. */
  'aborted',
  /** Connect, headers, body or the total time cap ran out. */
  'timeout',
  /** The host name does not resolve (ENOTFOUND, EAI_AGAIN). */
  'dns',
  'connection-refused',
  /** The connection dropped mid-request (ECONNRESET, EPIPE, a closed socket). */
  'connection-reset',
  /** The certificate or the TLS handshake was refused. */
  'tls',
  /** The body is over the byte cap (declared or read). */
  'too-large',
  'too-many-redirects',
  'redirect-loop',
  /** Not a url, or not http/https. */
  'invalid-url',
  /** The body could not be decompressed. */
  'decoding',
  /** The server broke HTTP (parser error, content-length mismatch). */
  'protocol',
  /** Any other transport failure (host or network unreachable, …). */
  'network',
] as const;

export type FetchFailureReason = (typeof FETCH_FAILURE_REASONS)[number];

/** A fetch failed; `reason` says why, `retryable` tells the engine whether trying again can help. */
export class FetchError extends CrawlerError {
  readonly reason: FetchFailureReason;
  readonly retryable: boolean;
  readonly status: number | undefined;
  constructor(
    message: string,
    options: { reason: FetchFailureReason; retryable: boolean; status?: number; cause?: unknown },
  ) {
    super('FETCH', message, { cause: options.cause });
    this.name = 'FetchError';
    this.reason = options.reason;
    this.retryable = options.retryable;
    this.status = options.status;
  }
}

/** A pipeline stage or output channel failed; `stage` names it. */
export class StageError extends CrawlerError {
  readonly stage: string;
  constructor(stage: string, message: string, cause?: unknown) {
    super('STAGE', `${stage}: ${message}`, { cause });
    this.name = 'StageError';
    this.stage = stage;
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof CrawlerError) return err.toLine();
  if (err instanceof Error) return err.message;
  return String(err);
}
