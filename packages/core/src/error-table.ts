import { CrawlerError, type CrawlerErrorCode } from './errors.js';

/** Process exit codes: 0 ok, 1 the work failed (or saved nothing), 2 wrong use, 130 interrupted (Ctrl-C). */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/** What an error code means to a caller: the HTTP status the REST API answers and the exit code of the CLI. */
export interface ErrorMapping {
  readonly http: number;
  readonly exit: number;
}

/**
 * The one table from error code to HTTP status and exit code. Wrong use (a setting, an input, a name that does not
 * exist) is the caller's to fix: 4xx and exit 2. Everything else is the work failing: 5xx and exit 1.
 */
export const ERROR_TABLE = {
  /** A setting or option is wrong. */
  CONFIG: { http: 400, exit: EXIT.usage },
  /** An input (url, query, id) is malformed. */
  BAD_INPUT: { http: 400, exit: EXIT.usage },
  /** A catalog, version or result does not exist (yet). */
  NOT_FOUND: { http: 404, exit: EXIT.usage },
  /** The state forbids it now: a run holds the lock, a catalog still holds versions. */
  CONFLICT: { http: 409, exit: EXIT.failed },
  /** A site could not be fetched: the upstream failed. */
  FETCH: { http: 502, exit: EXIT.failed },
  /** A pipeline stage or output channel failed. */
  STAGE: { http: 500, exit: EXIT.failed },
  /** The database, the files or an index could not be read or written; trying again later may help. */
  STORAGE: { http: 503, exit: EXIT.failed },
  /** Stored data is damaged; trying again does not help. */
  CORRUPT: { http: 500, exit: EXIT.failed },
  /** The embedding model is missing or failed. */
  EMBEDDING: { http: 503, exit: EXIT.failed },
  /** Another node or the cluster coordination failed. */
  CLUSTER: { http: 503, exit: EXIT.failed },
} as const satisfies Record<CrawlerErrorCode, ErrorMapping>;

/** Node's file-system errors that mean "this place cannot be written", with how to say it. */
const FS_ERRORS: Record<string, { http: number; what: (path: string, code: string) => string }> = {
  EACCES: { http: 500, what: (path, code) => `cannot write ${path} (${code})` },
  EROFS: { http: 500, what: (path, code) => `cannot write ${path} (${code})` },
  EPERM: { http: 500, what: (path, code) => `cannot write ${path} (${code})` },
  ENOSPC: { http: 507, what: (path, code) => `no space left writing ${path} (${code})` },
};

/** How the error reaches a person: one line naming the problem and the fix, and the codes it deserves. */
export interface ErrorReport extends ErrorMapping {
  /** The CrawlerError code, Node's errno code for a file-system error, or undefined for anything else. */
  readonly code: CrawlerErrorCode | string | undefined;
  /** One line, without a program-name prefix or a newline. */
  readonly line: string;
}

/** The table's entry for a code. */
export function errorMapping(code: CrawlerErrorCode): ErrorMapping {
  return ERROR_TABLE[code];
}

/**
 * One report for any thrown value: a CrawlerError by its code; Node's EACCES / EROFS / EPERM / ENOSPC as one line
 * naming the path and the fix (exit 1, HTTP 500 or 507); anything else as its message (exit 1, HTTP 500, or the
 * `statusCode` an HTTP framework error carries).
 */
export function reportOf(err: unknown): ErrorReport {
  if (err instanceof CrawlerError) return { code: err.code, line: err.toLine(), ...ERROR_TABLE[err.code] };
  const e = err as (NodeJS.ErrnoException & { statusCode?: unknown }) | undefined;
  const fs = typeof e?.code === 'string' ? FS_ERRORS[e.code] : undefined;
  if (e?.code !== undefined && fs !== undefined) {
    const fix =
      e.code === 'ENOSPC'
        ? 'free some space, or choose another data directory with --data DIR'
        : 'make it writable, or choose another with --data DIR';
    return {
      code: e.code,
      line: `${fs.what(e.path ?? 'the data directory', e.code)} — ${fix}`,
      http: fs.http,
      exit: EXIT.failed,
    };
  }
  const status = typeof e?.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 600 ? e.statusCode : 500;
  return {
    code: typeof e?.code === 'string' ? e.code : undefined,
    line: err instanceof Error ? err.message : String(err),
    http: status,
    exit: EXIT.failed,
  };
}
