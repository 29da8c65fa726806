import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as systemLookup } from 'node:dns/promises';
import { ConfigError } from '../errors.js';

/** One address of a host name, as a resolver answers it. */
export interface DnsAddress {
  address: string;
  family: 4 | 6;
  /** Seconds the answer may be kept, when the resolver knows it (the system resolver does not). */
  ttl?: number | undefined;
}

/**
 * Resolves a host name to its addresses. A name that does not resolve rejects with an error whose `code` says why
 * (`ENOTFOUND`, `EAI_AGAIN`), as `dns.lookup` does, so the fetcher tells the failure apart.
 */
export type DnsResolver = (hostname: string) => Promise<DnsAddress[]>;

/** Options of {@link DnsCache}; the crawler builds it from GF_DNS_TTL_MIN_MS, GF_DNS_TTL_MAX_MS, GF_DNS_NEGATIVE_TTL_MS, GF_DNS_CACHE_SIZE. */
export interface DnsCacheOptions {
  /** Who answers a name the cache does not hold. @default the system resolver (getaddrinfo: /etc/hosts, then DNS) */
  resolver?: DnsResolver | undefined;
  /** Floor of an answer's lifetime; an answer without a TTL is kept this long. @default 30000 */
  minTtlMs?: number | undefined;
  /** Ceiling of an answer's lifetime, whatever its TTL says. @default 600000 */
  maxTtlMs?: number | undefined;
  /** How long a name that did not resolve is answered as failed without asking again. @default 10000 */
  negativeTtlMs?: number | undefined;
  /** Names held at most; the least recently used goes first. @default 10000 */
  maxEntries?: number | undefined;
  /** The clock, in milliseconds. @default Date.now */
  now?: (() => number) | undefined;
}

/** What the cache did since it was built: every lookup is exactly one of hit, negative hit, shared or miss. */
export interface DnsCacheStats {
  /** Answered from a kept answer. */
  hits: number;
  /** Answered from a kept failure (the name did not resolve a moment ago). */
  negativeHits: number;
  /** Joined a lookup of the same name already under way. */
  shared: number;
  /** Asked the resolver. */
  misses: number;
  /** Resolver answers that were failures (kept for the negative TTL). */
  failures: number;
  /** Names held now (answers and failures). */
  entries: number;
}

interface Entry {
  expires: number;
  addresses?: DnsAddress[];
  error?: { code: string; message: string };
}

/** The system resolver: getaddrinfo (honours /etc/hosts, as the fetcher did before the cache); it gives no TTL. */
export const systemResolver: DnsResolver = async (hostname) =>
  (await systemLookup(hostname, { all: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/**
 * The node's DNS cache (issue 26 item 5), shared by every fetch of the node: pages, pictures, documents, robots.txt
 * and sitemaps. An answer is kept for its TTL, bounded by a floor and a ceiling; a failure is kept briefly, so a
 * host whose name does not resolve costs one lookup, not one per url; concurrent lookups of one name share one
 * resolver call. `lookup` has the shape of `dns.lookup`, for a socket's `lookup` option (the undici Agent's).
 */
export class DnsCache {
  readonly #resolver: DnsResolver;
  readonly #minTtl: number;
  readonly #maxTtl: number;
  readonly #negativeTtl: number;
  readonly #maxEntries: number;
  readonly #now: () => number;
  /** Insertion order is recency: a hit moves its name to the end, the first name is evicted. */
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<DnsAddress[]>>();
  readonly #stats = { hits: 0, negativeHits: 0, shared: 0, misses: 0, failures: 0 };

  constructor(options: DnsCacheOptions = {}) {
    this.#resolver = options.resolver ?? systemResolver;
    this.#minTtl = options.minTtlMs ?? 30_000;
    this.#maxTtl = options.maxTtlMs ?? 600_000;
    this.#negativeTtl = options.negativeTtlMs ?? 10_000;
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
    this.#now = options.now ?? Date.now;
    if (this.#minTtl > this.#maxTtl) {
      throw new ConfigError(
        'GF_DNS_TTL_MIN_MS',
        `${this.#minTtl} is above GF_DNS_TTL_MAX_MS (${this.#maxTtl})`,
        'set GF_DNS_TTL_MIN_MS at most GF_DNS_TTL_MAX_MS',
      );
    }
  }

  /**
   * The addresses of a host name: kept, shared with a lookup under way, or asked of the resolver.
   * @throws the resolver's error (a kept failure is thrown again as an error with the same `code`)
   */
  resolve(hostname: string): Promise<DnsAddress[]> {
    const name = hostname.toLowerCase();
    const entry = this.#entries.get(name);
    if (entry && entry.expires > this.#now()) {
      this.#entries.delete(name);
      this.#entries.set(name, entry);
      if (entry.addresses) {
        this.#stats.hits++;
        return Promise.resolve(entry.addresses);
      }
      this.#stats.negativeHits++;
      return Promise.reject(lookupError(name, entry.error));
    }
    const running = this.#inflight.get(name);
    if (running) {
      this.#stats.shared++;
      return running;
    }
    this.#stats.misses++;
    const asked = this.#ask(name);
    this.#inflight.set(name, asked);
    return asked;
  }

  /** A `dns.lookup`-shaped function over {@link resolve}, for a socket's `lookup` option. */
  readonly lookup = (
    hostname: string,
    options: LookupOptions | number | undefined,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const opts: LookupOptions = typeof options === 'number' ? { family: options } : (options ?? {});
    const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : (opts.family ?? 0);
    this.resolve(hostname).then(
      (addresses) => {
        const fit = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        if (fit.length === 0) {
          callback(lookupError(hostname, { code: 'ENOTFOUND', message: 'no address of that family' }), '');
        } else if (opts.all) {
          callback(
            null,
            fit.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          const first = fit[0] as DnsAddress;
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };

  /** Counts since the cache was built, and the names it holds. */
  stats(): DnsCacheStats {
    return { ...this.#stats, entries: this.#entries.size };
  }

  /** Forget every kept answer and failure. */
  clear(): void {
    this.#entries.clear();
  }

  async #ask(name: string): Promise<DnsAddress[]> {
    try {
      const addresses = await this.#resolver(name);
      if (addresses.length === 0) throw lookupError(name, { code: 'ENOTFOUND', message: 'no address' });
      this.#keep(name, { expires: this.#now() + this.#lifetime(addresses), addresses });
      return addresses;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const error = { code: typeof e?.code === 'string' ? e.code : 'ENOTFOUND', message: String(e?.message ?? e) };
      this.#stats.failures++;
      this.#keep(name, { expires: this.#now() + this.#negativeTtl, error });
      throw err;
    } finally {
      this.#inflight.delete(name);
    }
  }

  /** The shortest TTL of the answer, between the floor and the ceiling; the floor when none is given. */
  #lifetime(addresses: DnsAddress[]): number {
    const ttls = addresses.map((a) => a.ttl).filter((t): t is number => typeof t === 'number' && t >= 0);
    if (ttls.length === 0) return this.#minTtl;
    return Math.min(this.#maxTtl, Math.max(this.#minTtl, Math.min(...ttls) * 1000));
  }

  #keep(name: string, entry: Entry): void {
    this.#entries.delete(name);
    this.#entries.set(name, entry);
    while (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
    }
  }
}

/** An error shaped like getaddrinfo's, so the fetcher maps it as it maps the system's (ENOTFOUND: not retried). */
function lookupError(hostname: string, error: { code: string; message: string } | undefined): NodeJS.ErrnoException {
  const code = error?.code ?? 'ENOTFOUND';
  return Object.assign(new Error(`getaddrinfo ${code} ${hostname} (${error?.message ?? 'no address'})`), {
    code,
    hostname,
    syscall: 'getaddrinfo',
  });
}
