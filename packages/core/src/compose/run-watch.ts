import { FetchError } from '../errors.js';
import type { Extractor } from '../fetch/extractor.js';
import type { OutputChannel } from '../outputs/output-channel.js';
import { isWriteFailure } from '../storage/probe.js';

/** What one origin answered during a run. */
export interface OriginAnswers {
  /** HTTP answers of any status. */
  answers: number;
  /** Of them, 5xx and 429. */
  failing: number;
  /** The statuses seen, with how often. */
  statuses: Record<number, number>;
  /** The first transport failure (no HTTP answer at all), in words, and the url it happened at. */
  failure?: { what: string; url: string };
}

/** What an origin's robots.txt answered: a status, or a transport failure in words. */
export type RobotsAnswer = { status: number } | { failure: string };

/** A transport failure in the words of the closing line: "connection refused", "the host name does not resolve". */
export function describeFailure(err: unknown): string {
  if (err instanceof FetchError) {
    switch (err.reason) {
      case 'connection-refused':
        return 'connection refused';
      case 'dns':
        return 'the host name does not resolve';
      case 'timeout':
        return 'no answer in time';
      case 'connection-reset':
        return 'the connection was reset';
      case 'tls':
        return 'the TLS handshake failed';
      default:
        break;
    }
  }
  const message = err instanceof Error ? err.message : String(err);
  if (/ECONNREFUSED/.test(message)) return 'connection refused';
  if (/ENOTFOUND|EAI_AGAIN/.test(message)) return 'the host name does not resolve';
  if (/timed out|no answer within|TIMEOUT/i.test(message)) return 'no answer in time';
  return message;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Whether the site answered during a run, and how: read after the run to decide whether it earned a publish. */
export class SiteWatch {
  readonly #origins = new Map<string, OriginAnswers>();
  readonly #robots = new Map<string, RobotsAnswer>();

  #of(origin: string): OriginAnswers {
    let a = this.#origins.get(origin);
    if (!a) {
      a = { answers: 0, failing: 0, statuses: {} };
      this.#origins.set(origin, a);
    }
    return a;
  }

  answered(url: string, status: number): void {
    const a = this.#of(originOf(url));
    a.answers++;
    if (status >= 500 || status === 429) a.failing++;
    a.statuses[status] = (a.statuses[status] ?? 0) + 1;
  }

  failed(url: string, err: unknown): void {
    const a = this.#of(originOf(url));
    a.failure ??= { what: describeFailure(err), url };
  }

  robotsAnswered(url: string, answer: RobotsAnswer): void {
    this.#robots.set(originOf(url), answer);
  }

  origin(url: string): OriginAnswers | undefined {
    return this.#origins.get(originOf(url));
  }

  robots(url: string): RobotsAnswer | undefined {
    return this.#robots.get(originOf(url));
  }

  /** An extractor recording every answer and transport failure. */
  extractor(inner: Extractor): Extractor {
    return {
      name: inner.name,
      fetch: async (url, options) => {
        try {
          const r = await inner.fetch(url, options);
          this.answered(url, r.status);
          return r;
        } catch (err) {
          if (!(err instanceof FetchError && err.reason === 'aborted')) this.failed(url, err);
          throw err;
        }
      },
      close: () => inner.close(),
    };
  }
}

/**
 * The first write a store of the run refused (disk full, read-only, gone): the run is stopped at once, unpublished,
 * with one line naming it.
 */
export class StorageWatch {
  #failure: unknown;
  #listeners: Array<(err: unknown) => void> = [];

  get failure(): unknown {
    return this.#failure;
  }

  onFailure(listener: (err: unknown) => void): void {
    this.#listeners.push(listener);
    if (this.#failure !== undefined) listener(this.#failure);
  }

  /** Note an error; a write failure stops the run (once). Returns the error, to rethrow. */
  check(err: unknown): unknown {
    if (this.#failure === undefined && isWriteFailure(err)) {
      this.#failure = err;
      for (const l of this.#listeners) l(err);
    }
    return err;
  }

  /** An output channel whose refused writes stop the run. */
  channel(inner: OutputChannel): OutputChannel {
    const watched: OutputChannel = {
      layer: inner.layer,
      write: async (page) => {
        try {
          await inner.write(page);
        } catch (err) {
          throw this.check(err);
        }
      },
      flush: async () => {
        try {
          await inner.flush();
        } catch (err) {
          throw this.check(err);
        }
      },
      deleteVersion: (catalogId, version, dryRun) => inner.deleteVersion(catalogId, version, dryRun),
      counts: () => inner.counts(),
      close: () => inner.close(),
    };
    if (inner.setDurableListener) watched.setDurableListener = (listener) => inner.setDurableListener?.(listener);
    if (inner.abandon) watched.abandon = () => inner.abandon?.() ?? Promise.resolve();
    return watched;
  }
}
