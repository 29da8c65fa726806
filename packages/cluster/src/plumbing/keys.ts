import { ConfigError } from '@greenfinger/core';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A cluster or node name as a key part: letters, digits, `_`, `.`, `-`; one line naming the option otherwise. */
export function checkName(option: string, name: string): string {
  if (!NAME.test(name)) {
    throw new ConfigError(option, `"${name}" is not a usable name`, 'use 1–64 letters, digits, "_", "." or "-"');
  }
  return name;
}

/**
 * Every Redis key of a cluster, under the prefix `gf:<cluster>:`. Cluster-wide keys (members, the leader lease,
 * the control channel, the leader's inbox) sit directly under it; everything one run writes sits under
 * `gf:<cluster>:run:<runId>:` (see {@link RunKeys}), so a run's keys expire together.
 */
export class ClusterKeys {
  readonly cluster: string;
  readonly prefix: string;

  constructor(cluster: string) {
    this.cluster = checkName('--cluster', cluster);
    this.prefix = `gf:${cluster}:`;
  }

  /** Heartbeat of one member (expires when the member stops renewing it). */
  member(name: string): string {
    return `${this.prefix}member:${name}`;
  }
  /** Names of the members that joined and have not left or been cleared. */
  get members(): string {
    return `${this.prefix}members`;
  }
  /** The leader lease: `<name>|<token>`, with an expiry the holder renews. */
  get leader(): string {
    return `${this.prefix}leader`;
  }
  /** The fencing token: incremented by each new lease holder, so a stale leader's token is smaller. */
  get epoch(): string {
    return `${this.prefix}leader:epoch`;
  }
  /** Requests to the leader (a list): JSON with a request id. */
  get inbox(): string {
    return `${this.prefix}leader:inbox`;
  }
  /** The answer to one request (a list the asker pops, expiring). */
  reply(requestId: string): string {
    return `${this.prefix}reply:${requestId}`;
  }
  /** The control channel (pub/sub). */
  get control(): string {
    return `${this.prefix}control`;
  }
  /** The run in progress (one crawl per cluster): its STARTED message, for members that join late. */
  get currentRun(): string {
    return `${this.prefix}run:current`;
  }
  /** Prefix of the hosts' shared budgets (ClusterPoliteness): `…polite:<host>` (slots held), `…:tat` (token bucket), `…:pause`. */
  get polite(): string {
    return `${this.prefix}polite:`;
  }
  /** The highest version published per catalog, with the token that published it. */
  published(catalogId: string): string {
    return `${this.prefix}published:${catalogId}`;
  }
  /** The administrative deletions the leader made (a capped stream): what a member away from pub/sub catches up. */
  get deletions(): string {
    return `${this.prefix}deleted`;
  }
  /** The last entry of `deletions` one member has applied to its own layers (or passed: its own writes). */
  deletionsApplied(member: string): string {
    return `${this.prefix}deleted:applied:${member}`;
  }
  /** What the leader last saw of the catalogs' schedules (leader-schedules.ts), for `status --cluster`. */
  get schedules(): string {
    return `${this.prefix}schedules`;
  }
  /**
   * The change sets of completed runs not yet recorded (a hash, run id → the entry): written before a run reads as
   * completed, removed once its change log entry is written and its publications told (run-changes.ts), so a next
   * leader records what a leader that died in between did not.
   */
  get changesOwed(): string {
    return `${this.prefix}changes:owed`;
  }
  /** The stopped run of a catalog that `resume --cluster` continues (run-resume.ts), while its queue is kept. */
  resumable(catalogId: string): string {
    return `${this.prefix}resumable:${catalogId}`;
  }
  run(runId: string): RunKeys {
    return new RunKeys(this.prefix, checkName('run id', runId));
  }
}

/** The keys of one run: `gf:<cluster>:run:<runId>:…`. */
export class RunKeys {
  readonly runId: string;
  readonly base: string;

  constructor(prefix: string, runId: string) {
    this.runId = runId;
    this.base = `${prefix}run:${runId}:`;
  }

  /** The crawl stream of one member (consumer group `g`). */
  stream(node: string): string {
    return `${this.base}crawl:${node}`;
  }
  /** The search channel: index documents of the pages saved, batched, read by every member through its own group. */
  get search(): string {
    return `${this.base}search`;
  }
  /** The record channel: rows of a per-node record database, batched, read by every member through its own group. */
  get record(): string {
    return `${this.base}record`;
  }
  /** The run's page limit counted once for every member (RedisPageBudget): the pages saved or being saved. */
  get budget(): string {
    return `${this.base}budget`;
  }
  /** Who fetches each picture url of the run and what it became (RedisPictureRegistry): a field per url. */
  get pictures(): string {
    return `${this.base}pictures`;
  }
  /** The blob channel: page and picture files of per-node blob stores, in binary frames, one group per member. */
  get blob(): string {
    return `${this.base}blob`;
  }
  /** The vector channel: points of per-node vector stores, in binary frames, one group per member. */
  get vectors(): string {
    return `${this.base}vectors`;
  }
  /** The frontier-dedup channel: the urls each member's url filter marked known, one group per member. */
  get dedup(): string {
    return `${this.base}dedup`;
  }
  /** Every replicated channel's stream (completion waits for each to be applied by every member; trimmed). */
  get replicated(): string[] {
    return [this.search, this.record, this.blob, this.vectors, this.dedup];
  }
  /** The exact routing counters (`<node>|d`, `<node>|h`, …): changed atomically with the streams. */
  get counters(): string {
    return `${this.base}counters`;
  }
  /** Progress of each member (its engine's counters, JSON), flushed every 500 ms. */
  get progress(): string {
    return `${this.base}progress`;
  }
  /** Members that joined the run (their streams are the ones to drain). */
  get members(): string {
    return `${this.base}members`;
  }
  /** Members whose part ended while the run went on (an error, a stop of their own): routed around, re-homed. */
  get left(): string {
    return `${this.base}left`;
  }
  /** Why the run ended, written once (SET NX). */
  get ending(): string {
    return `${this.base}ending`;
  }
  /** The reports of the members, by node name. */
  get reports(): string {
    return `${this.base}reports`;
  }
  /** What was re-homed from members that died (`<node>|moved`, `<node>|claimed`). */
  get rehomed(): string {
    return `${this.base}rehomed`;
  }
  /** When the last live member posted its part (completion then waits for the search channel, bounded). */
  get postedAt(): string {
    return `${this.base}posted-at`;
  }
  /** Set once the run's version was published (SET NX). */
  get published(): string {
    return `${this.base}published`;
  }
  /** The run's change feeds as the member that read them shares them (feed-share.ts). */
  get feeds(): string {
    return `${this.base}feeds`;
  }
  /** The run's change set, merged over the members, as the leader recorded it (run-changes.ts). */
  get changes(): string {
    return `${this.base}changes`;
  }
  /** Set once COMPLETED was broadcast (SET NX), holding the merged report. */
  get completed(): string {
    return `${this.base}completed`;
  }
  /** The merged report of the stopped run this one resumes (its counters continue in this run's report). */
  get before(): string {
    return `${this.base}before`;
  }
  /** One bucket of the urls dispatched during the run (an intset of 63-bit url hashes). */
  seen(bucket: number): string {
    return `${this.base}seen:${bucket}`;
  }
}
