import { silentLogger } from '@greenfinger/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  announceDeletion,
  decodeDeletion,
  newestDeletion,
  oldestDeletion,
  readDeletions,
} from '../src/channels/deletion-log.js';
import { ControlChannel, type ControlMessage, decodeControl } from '../src/plumbing/control-channel.js';
import { type TestCluster, testCluster, until } from './support/redis.js';

const log = silentLogger();
let cluster: TestCluster | undefined;
afterEach(async () => {
  await cluster?.close();
  cluster = undefined;
});

const row = {
  id: '5f0c2d4e-0000-4000-8000-000000000001',
  catalogId: 'c1',
  version: 1,
  url: 'http://127.0.0.1/a.html',
  urlHash: 'h',
  state: 'saved',
  reason: '',
  depth: 1,
  referrer: null,
  updatedAt: '2026-12-01T00:00:00.000Z',
};

describe('the deletion log (real Redis)', () => {
  it('each deletion is logged, then sent as DELETED with its entry id; read back in order after a mark', async () => {
    cluster = await testCluster();
    const { keys, redis } = cluster;
    const control = new ControlChannel(redis, keys, log);
    const heard: ControlMessage[] = [];
    await control.subscribe(await cluster.connect('sub'), (m) => void heard.push(m));
    const ids = [
      await announceDeletion(redis, keys, control, 'a', {
        what: 'versions',
        catalogId: 'c1',
        versions: [0],
        layers: ['vector', 'index', 'file', 'db'],
        unserve: false,
        purge: false,
        marks: true,
      }),
      await announceDeletion(redis, keys, control, 'a', {
        what: 'url',
        catalogId: 'c1',
        row: row as never,
        files: ['x.html', 'x.txt'],
      }),
      await announceDeletion(redis, keys, control, 'b', { what: 'catalog', catalogId: 'c1' }),
    ];
    await until('three DELETED heard', () => heard.length === 3);
    expect(heard.map((m) => [m.type, m.from, m.log, m.what])).toEqual([
      ['DELETED', 'a', ids[0], 'versions'],
      ['DELETED', 'a', ids[1], 'url'],
      ['DELETED', 'b', ids[2], 'catalog'],
    ]);
    const all = await readDeletions(redis, keys, '0-0', 100);
    expect(all.entries.map((e) => [e.id, e.what, e.from])).toEqual([
      [ids[0], 'versions', 'a'],
      [ids[1], 'url', 'a'],
      [ids[2], 'catalog', 'b'],
    ]);
    expect(all.entries[1]).toMatchObject({ row: { id: row.id, version: 1 }, files: ['x.html', 'x.txt'] });
    const after = await readDeletions(redis, keys, ids[0] as string, 1);
    expect(after.entries.map((e) => e.id)).toEqual([ids[1]]);
    expect(after.last).toBe(ids[1]);
    expect(await oldestDeletion(redis, keys)).toBe(ids[0]);
    expect(await newestDeletion(redis, keys)).toBe(ids[2]);
  });

  it('decodes what it knows and ignores unknown fields; a kind it does not know is skipped', () => {
    const m = decodeControl(
      JSON.stringify({
        type: 'DELETED',
        runId: '-',
        from: 'a',
        log: '1-0',
        what: 'versions',
        catalogId: 'c',
        versions: [2, -1, 'x'],
        layers: ['index', 'paint'],
        later: 1,
      }),
    );
    expect(m?.type).toBe('DELETED');
    expect(decodeDeletion(m as ControlMessage)).toEqual({
      what: 'versions',
      catalogId: 'c',
      versions: [2],
      layers: ['index'],
      unserve: false,
      purge: false,
      marks: true,
    });
    expect(decodeDeletion({ what: 'bucket', catalogId: 'c' })).toBeUndefined();
    expect(decodeDeletion({ what: 'versions', catalogId: 'c', versions: [], layers: ['db'] })).toBeUndefined();
    expect(decodeDeletion({ what: 'url', catalogId: 'c', row: { id: 1 } })).toBeUndefined();
  });
});
