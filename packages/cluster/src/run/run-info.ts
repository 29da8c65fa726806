import { type Catalog, type CatalogRequest, ConfigError, type CrawlVerb } from '@greenfinger/core';
import { num, parseObject, str } from '../plumbing/wire.js';

/**
 * A cluster run, as STARTED announces it and `run:current` keeps it for members that join late: the catalog row
 * itself (seed 000: "the broadcast carries the Catalog row", so a member never looks up a catalog it has not heard
 * of), the version every member writes, the action, and the size of the run's seen set.
 */
export interface RunInfo {
  runId: string;
  catalog: Catalog;
  version: number;
  action: CrawlVerb;
  buckets: number;
  startedAt: string;
  /** The member that started it. */
  from: string;
  /**
   * Whose per-host budget the catalog's `hostConcurrency` and `intervalMs` are: each member's (`member`, N members
   * send up to N times it to one host), or the cluster's as a whole (`cluster`: shared in Redis). Chosen by the
   * leader (GF_CLUSTER_POLITENESS), so every member of a run applies the same.
   */
  politeness: PolitenessScope;
  /**
   * The stopped run this one resumes (`resume --cluster`): its members' streams, seen set, page budget and picture
   * claims were taken over, and `action` is the verb that run ran. Absent on a run that starts afresh.
   */
  resumes?: string | undefined;
}

/** What a crawl request sent to the leader names (a catalog, as `crawl` takes it, and the verb). */
export interface ClusterCrawlRequest extends CatalogRequest {
  action?: CrawlVerb | undefined;
}

/** The leader's answer to a crawl request. */
export interface RunStarted {
  runId: string;
  catalogId: string;
  catalog: string;
  version: number;
  action: CrawlVerb;
  created: boolean;
}

export type PolitenessScope = 'member' | 'cluster';
export const POLITENESS_SCOPES: readonly PolitenessScope[] = ['member', 'cluster'];

const ACTIONS: readonly string[] = ['crawl', 'update', 'merge', 'rebuild'];

/** A RunInfo from JSON (a STARTED message or `run:current`); undefined when a field it needs is missing. */
export function decodeRunInfo(input: string | Record<string, unknown>): RunInfo | undefined {
  const o = typeof input === 'string' ? parseObject(input) : input;
  if (!o) return undefined;
  const runId = str(o, 'runId');
  const version = num(o, 'version');
  const action = str(o, 'action');
  const buckets = num(o, 'buckets');
  const catalog = o.catalog as Catalog | undefined;
  if (!runId || version === undefined || !action || !ACTIONS.includes(action) || !buckets) return undefined;
  if (!catalog || typeof catalog !== 'object' || typeof catalog.id !== 'string' || !catalog.settings) return undefined;
  return {
    runId,
    catalog,
    version,
    action: action as CrawlVerb,
    buckets,
    startedAt: str(o, 'startedAt') ?? new Date().toISOString(),
    from: str(o, 'from') ?? '?',
    politeness: str(o, 'politeness') === 'cluster' ? 'cluster' : 'member',
    ...(str(o, 'resumes') ? { resumes: str(o, 'resumes') } : {}),
  };
}

/** The politeness scope a leader gives its runs: the option, else GF_CLUSTER_POLITENESS, else `member`. */
export function politenessScope(option: string | undefined, env: NodeJS.ProcessEnv = process.env): PolitenessScope {
  const value = (option ?? env.GF_CLUSTER_POLITENESS ?? 'member').trim().toLowerCase();
  if ((POLITENESS_SCOPES as readonly string[]).includes(value)) return value as PolitenessScope;
  throw new ConfigError(
    option === undefined ? 'GF_CLUSTER_POLITENESS' : '--politeness',
    `"${value}" is not a politeness scope`,
    'use member (each member its own per-host budget) or cluster (one budget shared by every member)',
  );
}
