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

/** A fetch failed; `retryable` tells the engine whether trying again can help. */
export class FetchError extends CrawlerError {
  readonly retryable: boolean;
  readonly status: number | undefined;
  constructor(message: string, options: { retryable: boolean; status?: number; cause?: unknown }) {
    super('FETCH', message, { cause: options.cause });
    this.name = 'FetchError';
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
