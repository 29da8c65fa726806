import type { ReplayLayer, ReplayMissing, ReplayReport } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import { LuaScript } from '../plumbing/lua-script.js';
import { parseObject, str } from '../plumbing/wire.js';

/** Pages per slice a replay is cut into (seed 000: "slices of 200 pages"). */
export const SLICE_PAGES = 200;
/** How long a replay's keys stay after it ended (the CLI reads the merged report from there). */
export const REPLAY_TTL_SECONDS = 3600;

/** The replay in progress, as `replay:current` holds it: what every member opens its session with. */
export interface ReplayInfo {
  replayId: string;
  catalogId: string;
  catalog: string;
  version: number;
  layers: ReplayLayer[];
  /** Pages of the version, slices cut. */
  pages: number;
  slices: number;
  /** Pages per slice. */
  slicePages: number;
  /** The member that asked (the leader when it was asked): it gathers, redoes failed slices and republishes. */
  from: string;
  startedAt: string;
}

/** One slice on its way to a member: pages by id, the members that already looked for their files. */
export interface SliceTask {
  id: string;
  ids: string[];
  /** Members whose data root did not hold these pages' files (absent there). */
  tried: string[];
  /** `absent` while another member may hold the files; `refetch` for the last one asked (then they are lost). */
  missing: ReplayMissing;
}

/** A member's answer to one slice. */
export interface SliceAnswer {
  task: string;
  node: string;
  /** Pages of the slice found in the version (absent ones included). */
  pages?: number;
  layers?: ReplayReport['layers'];
  requests?: number;
  absent?: string[];
  elapsedMs?: number;
  error?: string;
}

/** What the asker's merged report adds to a ReplayReport. */
export interface ClusterReplayReport extends ReplayReport {
  cluster: string;
  replayId: string;
  /** Members that took part (opened a session). */
  nodes: string[];
  /** Per member: slices answered, pages rebuilt there (absent ones not counted), requests. */
  byNode: Record<string, { slices: number; pages: number; requests: number }>;
  /** Slices done again because their member died, failed or did not answer in time. */
  redone: Array<{ task: string; node: string; why: string; pages: number }>;
  /** Members that did not take part or did not end their part, with why. */
  missing?: Record<string, string>;
  /** Pages no member could rebuild (their files were nowhere and the file layer was not replayed). */
  unrebuilt: number;
}

/** What the leader answers to a replay request: the replay has started, its report comes to `report`. */
export type ReplayStarted = ReplayInfo;

/** Every Redis key of one replay, under `gf:<cluster>:replay:<replayId>:`. */
export class ReplayKeys {
  readonly base: string;

  constructor(keys: ClusterKeys, replayId: string) {
    this.base = `${keys.prefix}replay:${replayId}:`;
  }

  /** The shared slice stream: one consumer group (`g`), every member pulls from it, so work spreads by itself. */
  get slices(): string {
    return `${this.base}slices`;
  }
  /** Slices for one member only (the pages the others did not hold), same group. */
  to(node: string): string {
    return `${this.base}to:${node}`;
  }
  /** The members' answers (a list the asker pops). */
  get answers(): string {
    return `${this.base}answers`;
  }
  /** Index documents rebuilt on one member, for the others' embedded indexes (one group per member). */
  get search(): string {
    return `${this.base}search`;
  }
  /** Files fetched again on one member, for the others' per-node blob stores (binary frames, one group per member). */
  get blob(): string {
    return `${this.base}blob`;
  }
  /** Vectors rebuilt on one member, for the others' per-node vector stores. */
  get vectors(): string {
    return `${this.base}vectors`;
  }
  /** Members whose session is open (`ok`) or could not be (`error`), by name. */
  get ready(): string {
    return `${this.base}ready`;
  }
  /** Set by the asker once every slice is settled and every member applied the others' documents. */
  get end(): string {
    return `${this.base}end`;
  }
  /** Members that ended their part (optimized, registry written), by name, with their report's path. */
  get ended(): string {
    return `${this.base}ended`;
  }
  /** Progress for the CLI: pages settled and the counts so far (JSON). */
  get progress(): string {
    return `${this.base}progress`;
  }
  /** The merged report (JSON), once it is over. */
  get report(): string {
    return `${this.base}report`;
  }
}

/** The replay in progress on a cluster (one at a time). */
export function currentReplayKey(keys: ClusterKeys): string {
  return `${keys.prefix}replay:current`;
}

/**
 * The replay in progress, if its asker is still a member (its heartbeat is there); one whose asker died is cleared
 * here (compare and delete), so neither a crawl nor the next replay waits for it.
 */
export async function activeReplay(redis: Redis, keys: ClusterKeys): Promise<ReplayInfo | undefined> {
  const key = currentReplayKey(keys);
  const text = await redis.get(key);
  const info = decodeReplayInfo(text);
  if (!info) return undefined;
  if (await redis.exists(keys.member(info.from))) return info;
  await CLEAR_IF.run(redis, [key], [text ?? '']);
  return undefined;
}

const CLEAR_IF = new LuaScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`);

export function decodeReplayInfo(text: string | null): ReplayInfo | undefined {
  const o = text ? parseObject(text) : undefined;
  if (!o || !str(o, 'replayId') || !str(o, 'catalogId') || typeof o.version !== 'number') return undefined;
  return o as unknown as ReplayInfo;
}

export function decodeTask(text: string): SliceTask | undefined {
  const o = parseObject(text);
  if (!o || !str(o, 'id') || !Array.isArray(o.ids)) return undefined;
  return {
    id: String(o.id),
    ids: (o.ids as unknown[]).map(String),
    tried: Array.isArray(o.tried) ? (o.tried as unknown[]).map(String) : [],
    missing: o.missing === 'refetch' ? 'refetch' : 'absent',
  };
}

export function decodeAnswer(text: string): SliceAnswer | undefined {
  const o = parseObject(text);
  if (!o || !str(o, 'task') || !str(o, 'node')) return undefined;
  return o as unknown as SliceAnswer;
}
