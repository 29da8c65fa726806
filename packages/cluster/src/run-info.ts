import type { Catalog, CrawlVerb } from '@greenfinger/core';
import { num, parseObject, str } from './wire.js';

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
}

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
  };
}
