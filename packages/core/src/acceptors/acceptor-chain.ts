import { ConfigError, StageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { Registry } from '../registry.js';
import type { AcceptorContext, AcceptorFactory, Candidate, UrlPathAcceptor, Verdict } from './acceptor.js';
import { assetCheck } from './asset-check.js';
import { maxDepth } from './depth.js';
import { domainScope } from './domain-scope.js';
import { pathPatterns } from './path-patterns.js';
import { robotsTxt } from './robots-txt.js';
import { startUrlPrefix } from './start-url-prefix.js';
import { ACCEPT } from './verdict.js';

/** Every UrlPathAcceptor by name, in the documented order the chain runs them. */
export const acceptorFactories = {
  'domain-scope': domainScope,
  'start-url-prefix': startUrlPrefix,
  'asset-check': assetCheck,
  'robots-txt': robotsTxt,
  depth: maxDepth,
  'path-patterns': pathPatterns,
} satisfies Record<string, AcceptorFactory>;

export type AcceptorName = keyof typeof acceptorFactories;

/** The acceptor names in chain order. */
export const acceptorNames: readonly AcceptorName[] = Object.freeze(Object.keys(acceptorFactories) as AcceptorName[]);

/**
 * The open registry of acceptors a catalog names in `acceptors`: the six built-in ones, then any a library user
 * registers (`acceptorRegistry.register('my-rule', (ctx) => acceptor)`). Registered acceptors run after the built-in
 * ones, in the order the catalog names them.
 */
export const acceptorRegistry = new Registry<AcceptorFactory>('--acceptors', acceptorFactories);

/** The acceptors that are always in a chain. */
export const mandatoryAcceptors: readonly AcceptorName[] = Object.freeze(['domain-scope', 'start-url-prefix']);

export interface AcceptorChainOptions {
  /** Refusals are logged here at debug level. */
  logger?: Logger;
}

function wrap(acceptor: UrlPathAcceptor, err: unknown): StageError {
  const message = err instanceof Error ? err.message : String(err);
  return new StageError(`acceptor ${acceptor.name}`, message, err);
}

/**
 * Runs UrlPathAcceptors strictly in order; the first refusal wins and names its acceptor.
 *
 * The order is kept as documented rather than moving the async robots check last: only urls that passed scope and
 * asset checks reach robots.txt, so it is fetched only for in-scope origins, and after that one fetch per origin
 * the check is a cached lookup. While acceptors answer synchronously the chain answers synchronously too.
 * An acceptor that throws becomes a StageError naming it (a refusal is a verdict, never an exception).
 */
export class AcceptorChain implements UrlPathAcceptor {
  readonly name = 'acceptor-chain';
  readonly acceptors: readonly UrlPathAcceptor[];
  readonly #logger: Logger | undefined;

  constructor(acceptors: readonly UrlPathAcceptor[], options: AcceptorChainOptions = {}) {
    this.acceptors = Object.freeze([...acceptors]);
    this.#logger = options.logger;
  }

  /** The names of the acceptors, in order. */
  get names(): string[] {
    return this.acceptors.map((a) => a.name);
  }

  check(candidate: Candidate): Verdict | Promise<Verdict> {
    return this.#run(candidate, 0);
  }

  #run(candidate: Candidate, from: number): Verdict | Promise<Verdict> {
    for (let i = from; i < this.acceptors.length; i++) {
      const acceptor = this.acceptors[i] as UrlPathAcceptor;
      let verdict: Verdict | Promise<Verdict>;
      try {
        verdict = acceptor.check(candidate);
      } catch (err) {
        throw wrap(acceptor, err);
      }
      if (verdict instanceof Promise) {
        return verdict.then(
          (v) => (v.accept ? this.#run(candidate, i + 1) : this.#refused(candidate, v)),
          (err: unknown) => {
            throw wrap(acceptor, err);
          },
        );
      }
      if (!verdict.accept) return this.#refused(candidate, verdict);
    }
    return ACCEPT;
  }

  #refused(candidate: Candidate, verdict: Verdict): Verdict {
    if (!verdict.accept) {
      this.#logger?.debug(
        { url: candidate.url, acceptor: verdict.acceptor, outcome: verdict.outcome },
        `refused: ${verdict.reason}`,
      );
    }
    return verdict;
  }
}

/**
 * Builds the chain for a catalog. `names` picks the optional acceptors; the mandatory `domain-scope` and
 * `start-url-prefix` are always included, and the order is always the documented one whatever the order of `names`.
 * Without `names` all six run.
 *
 * @throws ConfigError (field `acceptors`) for an unknown name, listing the known ones
 */
export function createAcceptorChain(
  ctx: AcceptorContext,
  names?: readonly string[],
  options: AcceptorChainOptions = {},
): AcceptorChain {
  const wanted = new Set<string>(names ?? acceptorNames);
  for (const n of wanted) {
    if (!acceptorRegistry.has(n)) {
      throw new ConfigError(
        'acceptors',
        `unknown acceptor "${n}"`,
        `use any of: ${acceptorRegistry.names().join(', ')}`,
      );
    }
  }
  for (const m of mandatoryAcceptors) wanted.add(m);
  const builtIn = acceptorNames.filter((n) => wanted.has(n));
  const added = [...wanted].filter((n) => !(acceptorNames as readonly string[]).includes(n));
  const acceptors = [...builtIn, ...added].map((n) => acceptorRegistry.get(n)(ctx));
  return new AcceptorChain(acceptors, options);
}
