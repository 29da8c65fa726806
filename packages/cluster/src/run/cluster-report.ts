import type { ChangeSet, RunReport } from '@greenfinger/core/internal';

/** A member's part of a run, as it posted it: its report, or the error that ended its part. */
export interface MemberPart {
  report?: RunReport;
  error?: string;
  /** Crawl-stream entries it read, and of them the ones settled as already queued here. */
  received?: number;
  duplicates?: number;
  /** Entries it forwarded to the member the ring gives them now (after a member joined). */
  forwarded?: number;
  /** Entries it had read ahead and found re-homed after its heartbeat lapsed: not fetched by it. */
  revoked?: number;
  /** Its part of the run's change set, when its part published (the leader records the merged set once). */
  changes?: ChangeSet & { comparedWith?: number | undefined };
}

/**
 * The merged report of a cluster run (seed 000: "reports are per node and merged"): the members' counters added up,
 * the run's ending, `nodes` (every member that took part) and `byNode` (each member's own report).
 */
export interface ClusterRunReport extends RunReport {
  cluster: string;
  runId: string;
  nodes: string[];
  byNode: Record<string, RunReport>;
  /** Members whose part failed or who left without a report, with why. */
  missing?: Record<string, string>;
  /**
   * The run's exact routing counters from Redis: Σ dispatched and Σ handled over every member (a member that died
   * counts here though its report is missing), and entries left in the streams.
   */
  routing?: { dispatched: number; handled: number; streamed: number };
  /** Members that died during the run: entries of their streams moved to others, and of them the ones in flight. */
  rehomed?: Record<string, { moved: number; claimed: number }>;
  /** Members taken for dead during the run (a stall): entries they had read ahead, found re-homed and not fetched. */
  revoked?: Record<string, number>;
  /** The stopped run this one resumed (`resume --cluster`): its counters are added into this report's. */
  resumed?: { runId: string; action: string; reason: string; saved: number; startedAt: string; endedAt: string };
}

function add(into: Record<string, number>, from: Record<string, number> | undefined): void {
  for (const [k, v] of Object.entries(from ?? {})) into[k] = (into[k] ?? 0) + v;
}

/** The counters of several reports added up (the fields a cluster report sums), with the first's shape. */
type Sums = Pick<RunReport, 'produced' | 'urls' | 'rejected' | 'examples' | 'outputs' | 'stages'> & {
  pictures: NonNullable<RunReport['pictures']>;
  startedAt: string;
  endedAt: string;
  published: boolean;
};

function addUp(first: RunReport, reports: readonly RunReport[]): Sums {
  const produced = { saved: 0, images: 0, indexed: 0, vectored: 0 };
  const urls = { ...first.urls };
  for (const k of Object.keys(urls) as Array<keyof RunReport['urls']>) urls[k] = 0;
  const rejected: Record<string, number> = {};
  const examples: Record<string, string> = {};
  const outputs: RunReport['outputs'] = {};
  const stages: Record<string, number> = {};
  const pictures = { kept: 0, rejected: {} as Record<string, number>, examples: {} as Record<string, string> };
  let startedAt = first.startedAt;
  let endedAt = first.endedAt;
  let published = false;
  for (const r of reports) {
    for (const k of Object.keys(produced) as Array<keyof typeof produced>) produced[k] += r.produced[k] ?? 0;
    for (const k of Object.keys(urls) as Array<keyof RunReport['urls']>) urls[k] += r.urls[k] ?? 0;
    add(rejected, r.rejected);
    for (const [k, v] of Object.entries(r.examples ?? {})) examples[k] ??= v;
    for (const [name, s] of Object.entries(r.outputs ?? {})) {
      const o = outputs[name] ?? { written: 0, failed: 0 };
      outputs[name] = o;
      o.written += s.written;
      o.failed += s.failed;
      if (s.lastError) o.lastError = s.lastError;
    }
    add(stages, r.stages);
    if (r.pictures) {
      pictures.kept += r.pictures.kept;
      add(pictures.rejected, r.pictures.rejected);
      for (const [k, v] of Object.entries(r.pictures.examples)) pictures.examples[k] ??= v;
    }
    if (r.startedAt < startedAt) startedAt = r.startedAt;
    if (r.endedAt > endedAt) endedAt = r.endedAt;
    published ||= r.ending.published;
  }
  return { produced, urls, rejected, examples, outputs, stages, pictures, startedAt, endedAt, published };
}

/** Merge the members' reports of one run; `ending` is the run's, written once (routing-scripts.ts). */
export function mergeReports(input: {
  cluster: string;
  runId: string;
  ending: string;
  parts: Record<string, MemberPart>;
}): ClusterRunReport | undefined {
  const byNode: Record<string, RunReport> = {};
  const missing: Record<string, string> = {};
  const revoked: Record<string, number> = {};
  for (const [node, part] of Object.entries(input.parts).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (part.report) byNode[node] = part.report;
    else missing[node] = part.error ?? 'no report';
    if (part.revoked) revoked[node] = part.revoked;
  }
  const reports = Object.values(byNode);
  const first = reports[0];
  if (!first) return undefined;
  const { published, ...sums } = addUp(first, reports);
  const fullyCrawled = input.ending === 'frontier-drained' && sums.urls.outstanding === 0;
  return {
    ...first,
    node: `cluster:${input.cluster}`,
    ...sums,
    elapsedMs: new Date(sums.endedAt).getTime() - new Date(sums.startedAt).getTime(),
    ending: {
      reason: input.ending,
      fullyCrawled,
      published,
      note: `${reports.length} member${reports.length === 1 ? '' : 's'}: ${Object.entries(byNode)
        .map(([n, r]) => `${n} saved ${r.produced.saved}`)
        .join(', ')}${published ? '; the version is published' : '; nothing was published'}`,
    },
    cluster: input.cluster,
    runId: input.runId,
    nodes: Object.keys(input.parts).sort(),
    byNode,
    ...(Object.keys(missing).length > 0 ? { missing } : {}),
    ...(Object.keys(revoked).length > 0 ? { revoked } : {}),
  };
}

/**
 * The report of a resumed run (`resume --cluster`) continuing the stopped run's, as one process's resume continues
 * its counters: the two runs' counters added up, from the stopped run's start, the action `resume`, `resumed`
 * naming what was continued; `byNode` and `nodes` are this run's members.
 */
export function continueReport(before: ClusterRunReport, after: ClusterRunReport): ClusterRunReport {
  const { published: _published, ...sums } = addUp(after, [before, after]);
  return {
    ...after,
    ...sums,
    action: 'resume',
    elapsedMs: before.elapsedMs + after.elapsedMs,
    resumed: {
      runId: before.runId,
      action: before.action,
      reason: before.ending.reason,
      saved: before.produced.saved,
      startedAt: before.startedAt,
      endedAt: before.endedAt,
    },
    ending: {
      ...after.ending,
      note: `resumed run ${before.runId} (${before.ending.reason} after ${before.produced.saved} saved); ${after.ending.note ?? ''}`,
    },
  };
}
