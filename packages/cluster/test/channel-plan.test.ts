import { clusterSharing, loadSettings, silentLogger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChannelPlan } from '../src/channels/channel-plan.js';
import { RunReplicas } from '../src/channels/run-replicas.js';
import type { RunInfo } from '../src/run/run-info.js';
import { type TestCluster, testCluster, testRedisUrl } from './support/redis.js';

const ALL = ['file', 'index', 'vector'];
const SHARED = {
  databaseUrl: 'postgres://gf:pw@127.0.0.1:5432/gf',
  indexProvider: 'elasticsearch',
  vectorStore: 'qdrant',
  fileTarget: 's3',
};

/** Settings as the node reads them, with the other families' keys (GF_INDEX_PROVIDER, …) given as they are named. */
const settingsOf = (extra: Record<string, string> = {}) => ({ ...loadSettings({}, {}), ...extra });

describe('replicated or shared (seed 000), from the configuration', () => {
  it('embedded stores are replicated; PostgreSQL, Elasticsearch, Qdrant and S3 are shared', () => {
    expect(clusterSharing(settingsOf())).toEqual({
      records: 'replicated',
      index: 'replicated',
      vectors: 'replicated',
      files: 'replicated',
    });
    expect(clusterSharing(settingsOf(SHARED))).toEqual({
      records: 'shared',
      index: 'shared',
      vectors: 'shared',
      files: 'shared',
    });
    // one family at a time: only that one changes
    expect(clusterSharing(settingsOf({ indexProvider: 'elasticsearch' }))).toMatchObject({
      index: 'shared',
      vectors: 'replicated',
    });
    expect(clusterSharing(settingsOf({ vectorStore: 'elasticsearch' }))).toMatchObject({
      vectors: 'shared',
      index: 'replicated',
    });
    expect(clusterSharing(settingsOf({ fileTarget: 's3' }))).toMatchObject({ files: 'shared', records: 'replicated' });
  });

  it('the channels of a run: a shared family has none; search and vectors only for a catalog writing them', () => {
    const plan = (extra: Record<string, string>, outputs = ALL) =>
      [...runChannelPlan(clusterSharing(settingsOf(extra)), outputs)].sort();
    expect(plan({})).toEqual(['blob', 'dedup', 'record', 'search', 'vectors']);
    expect(plan({}, ['file'])).toEqual(['blob', 'dedup', 'record']);
    expect(plan(SHARED)).toEqual(['dedup']);
    expect(plan({ indexProvider: 'elasticsearch' })).toEqual(['blob', 'dedup', 'record', 'vectors']);
    expect(plan({ vectorStore: 'qdrant' })).toEqual(['blob', 'dedup', 'record', 'search']);
    expect(plan({ fileTarget: 's3' })).toEqual(['dedup', 'record', 'search', 'vectors']);
  });
});

/**
 * The wiring: RunReplicas.start, where a member's channels begin, follows the plan. Its stores are stand-ins named as
 * the embedded families are (no frame is sent or applied here); the channels that start read Redis for real. A full
 * cluster on a real Elasticsearch, Qdrant or S3 is not run here (none is at hand).
 */
describe('RunReplicas.start follows the plan', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await testCluster();
  });
  afterAll(async () => {
    await cluster?.close();
  });

  async function started(extra: Record<string, string>): Promise<string[]> {
    const settings = settingsOf(extra);
    const filter = { name: 'level' };
    const gf = {
      settings,
      index: () => ({ name: 'sqlite-fts' }),
      database: async () => ({ kind: extra.databaseUrl ? 'postgres' : 'sqlite' }),
      vectorFamily: () => undefined,
      factory: { urlFilter: async () => filter },
    };
    const replicas = new RunReplicas({
      name: 'm1',
      keys: cluster.keys,
      redis: cluster.redis,
      redisUrl: testRedisUrl,
      gf: () => gf as never,
      runOf: () => undefined,
      log: silentLogger(),
    });
    // what the member's components hand over when its stores open (member-components.ts)
    replicas.records({
      kind: extra.databaseUrl ? 'postgres' : 'sqlite',
      resources: {},
      ledger: {},
      catalogs: {},
    } as never);
    replicas.blobs({ name: extra.fileTarget === 's3' ? 's3' : 'local' } as never);
    replicas.vectors({ name: extra.vectorStore === 'qdrant' ? 'qdrant' : 'sqlite-vec' } as never);
    replicas.urlFilter(filter as never);
    const runId = `r${Math.random().toString(36).slice(2)}`;
    const info = { runId, catalog: { id: 'c1', settings: { outputs: ALL } }, version: 1 } as unknown as RunInfo;
    try {
      await replicas.start(info);
      return replicas.startedChannels(runId).sort();
    } finally {
      await replicas.close();
    }
  }

  it('embedded stores: the search, record, blob, vector and url-dedup channels start', async () => {
    expect(await started({})).toEqual(['blob', 'dedup', 'record', 'search', 'vectors']);
  });

  it('shared stores: only the url-dedup channel starts (the frontier filter is per node)', async () => {
    expect(await started(SHARED)).toEqual(['dedup']);
  });

  it('only Elasticsearch shared: every channel but search starts', async () => {
    expect(await started({ indexProvider: 'elasticsearch' })).toEqual(['blob', 'dedup', 'record', 'vectors']);
  });
});
