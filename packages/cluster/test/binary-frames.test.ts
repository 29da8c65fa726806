import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  LocalBlobStore,
  SqliteVecFamily,
  silentLogger,
  type TextPointPayload,
  type VectorPoint,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';
import { createTempDir } from '../../core/test/support/tmp.js';
import { blobReplicaConsumer, replicatedBlobs } from '../src/channels/blob-replica.js';
import {
  type BinaryItem,
  FrameConsumer,
  FrameSender,
  framesCaughtUp,
  MAX_FRAME_BYTES,
  trimFrames,
} from '../src/channels/multicast-frames.js';
import { replicatedVectors, vectorReplicaConsumer } from '../src/channels/vector-replica.js';
import { testCluster, testRedisUrl, until } from './support/redis.js';

const log = silentLogger();

/** A consumer for member `node` that keeps what it is given. */
function collector(key: string, node: string) {
  const got: Array<{ kind: string; items: unknown[] }> = [];
  const consumer = new FrameConsumer({
    redisUrl: testRedisUrl,
    key,
    node,
    log,
    apply: async (kind, items) => void got.push({ kind, items }),
  });
  return { consumer, got, items: () => got.flatMap((g) => g.items as BinaryItem[]) };
}

/** Every entry of a stream as Redis holds it, its fields as bytes. */
async function rawEntries(redis: import('ioredis').Redis, key: string) {
  const reply = (await redis.xrangeBuffer(key, '-', '+')) as Array<[Buffer, Buffer[]]>;
  return reply.map(([, fields]) => {
    const o = new Map<string, Buffer>();
    for (let i = 0; i + 1 < fields.length; i += 2) o.set(String(fields[i]), fields[i + 1] as Buffer);
    return o;
  });
}

describe('binary frames', () => {
  it('carry bytes exactly as sent (0x00, 0xff, bytes that are not UTF-8, empty), never as text', async () => {
    await using cluster = await testCluster();
    const key = cluster.keys.run('r1').blob;
    const n2 = collector(key, 'n2');
    await n2.consumer.start();
    const sender = new FrameSender(cluster.redis, key, 'n1', log);
    const bodies = [
      Buffer.from([0x00, 0x00, 0xff, 0xfe, 0x80, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0x00]),
      Buffer.alloc(0),
      randomBytes(70_000),
      Buffer.from('é\u0000ß', 'utf8'),
    ];
    await sender.pushBinary(
      'file',
      bodies.map((body, i) => ({ head: { key: `k${i}` }, body })),
    );
    await sender.flush();
    await until('four items at n2', () => n2.items().length === 4);
    await n2.consumer.stop();
    const got = n2.items();
    for (const [i, body] of bodies.entries()) {
      expect(got[i]?.head).toEqual({ key: `k${i}` });
      expect(got[i]?.body.equals(body), `item ${i}`).toBe(true);
    }
    // One frame: the heads in JSON (`m`), the bytes one after the other in a binary field (`b`), no base64.
    const [entry] = await rawEntries(cluster.redis, key);
    expect(JSON.parse(String(entry?.get('m')))).toEqual(bodies.map((b, i) => ({ h: { key: `k${i}` }, n: b.length })));
    expect(entry?.get('b')?.equals(Buffer.concat(bodies))).toBe(true);
  });

  it('a 3 MiB picture travels in pieces of at most 1 MiB a frame and is put together again; 100 items at most a frame', async () => {
    await using cluster = await testCluster();
    const key = cluster.keys.run('r1').blob;
    const n2 = collector(key, 'n2');
    await n2.consumer.start();
    const sender = new FrameSender(cluster.redis, key, 'n1', log);
    const picture = randomBytes(3 * 1024 * 1024);
    const small = Array.from({ length: 250 }, (_, i) => ({ head: { key: `s${i}` }, body: randomBytes(100) }));
    await sender.pushBinary('file', [small[0] as BinaryItem, { head: { key: 'big.jpg' }, body: picture }]);
    await sender.pushBinary('file', small.slice(1));
    await sender.flush();
    await until('251 items at n2', () => n2.items().length === 251, 15_000);
    await n2.consumer.stop();
    const big = n2.items().find((i) => i.head.key === 'big.jpg');
    expect(big?.body.equals(picture)).toBe(true);
    const byKey = new Map(n2.items().map((i) => [String(i.head.key), i.body]));
    for (const s of small) expect(byKey.get(String(s.head.key))?.equals(s.body)).toBe(true);
    const entries = await rawEntries(cluster.redis, key);
    const sizes = entries.map((e) => (e.get('b')?.length ?? 0) + (e.get('m')?.length ?? 0));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_FRAME_BYTES);
    // 1 small frame, 4 pieces of the picture, then 249 small ones in frames of 100
    const counts = entries.map((e) => (JSON.parse(String(e.get('m'))) as unknown[]).length);
    expect(counts).toEqual([1, 1, 1, 1, 1, 100, 100, 49]);
    console.log(
      `a 3 MiB picture: ${entries.length - 4} frames of at most ${Math.max(...sizes.slice(1, 5))} bytes; ` +
        `frames sent ${sender.frames}, ${sender.bytes} bytes for ${picture.length + 250 * 100} bytes of items`,
    );
  });

  it('the blob channel: files written under a run reach the other member’s store, applied twice with the same result; the stream is trimmed and caught up', async () => {
    await using cluster = await testCluster();
    using a = createTempDir('gf-blob-a-');
    using b = createTempDir('gf-blob-b-');
    const key = cluster.keys.run('r1').blob;
    const storeA = new LocalBlobStore(a.path);
    const storeB = new LocalBlobStore(b.path);
    const sender = new FrameSender(cluster.redis, key, 'n1', log);
    const wrapped = replicatedBlobs(storeA, (catalogId, version) =>
      catalogId === 'c1' && version === 0 ? sender : undefined,
    );
    const consumers = [
      blobReplicaConsumer({ redisUrl: testRedisUrl, key, node: 'n1', store: storeA, log }),
      blobReplicaConsumer({ redisUrl: testRedisUrl, key, node: 'n2', store: storeB, log }),
    ];
    for (const c of consumers) await c.start();
    const picture = randomBytes(2 * 1024 * 1024 + 17);
    const html = Buffer.from([0x3c, 0x70, 0x3e, 0x00, 0xff, 0x3c]);
    const writer = wrapped.openWriter?.({ thread: undefined }) ?? wrapped;
    await writer.put('assets/c1/v0/pages/ab/cd/p1.html', html);
    await writer.put('assets/c1/v0/pages/ab/cd/p1.txt', 'text of page one — ü');
    await writer.put('assets/c1/v0/images/ef/01/i1.jpg', picture);
    await writer.put('assets/c1/v0/reports/x-crawl-n1.json', '{}'); // a member's own report: not sent
    await writer.put('assets/c2/v0/pages/ab/cd/p9.txt', 'another catalog, no run'); // not sent
    await sender.flush();
    await until('caught up', () => framesCaughtUp(cluster.redis, key, ['n1', 'n2']), 15_000);
    expect((await storeB.get('assets/c1/v0/pages/ab/cd/p1.html'))?.equals(html)).toBe(true);
    expect(await storeB.getText('assets/c1/v0/pages/ab/cd/p1.txt')).toBe('text of page one — ü');
    expect((await storeB.get('assets/c1/v0/images/ef/01/i1.jpg'))?.equals(picture)).toBe(true);
    expect(await storeB.exists('assets/c1/v0/reports/x-crawl-n1.json')).toBe(false);
    expect(await storeB.exists('assets/c2/v0/pages/ab/cd/p9.txt')).toBe(false);
    const before = await storeB.stat('assets');
    await trimFrames(cluster.redis, key);
    expect(await cluster.redis.xlen(key)).toBe(0);
    // Delivered again (a member that crashed before acknowledging): the same files, the same bytes.
    await sender.pushBinary('file', [{ head: { key: 'assets/c1/v0/images/ef/01/i1.jpg' }, body: picture }]);
    await sender.flush();
    await until('caught up again', () => framesCaughtUp(cluster.redis, key, ['n1', 'n2']), 15_000);
    expect(await storeB.stat('assets')).toEqual(before);
    expect((await storeB.get('assets/c1/v0/images/ef/01/i1.jpg'))?.equals(picture)).toBe(true);
    for (const c of consumers) await c.stop();
    // A store that is not per node (a shared object store) is not wrapped.
    const shared = { ...storeA, name: 's3' } as unknown as LocalBlobStore;
    expect(replicatedBlobs(shared, () => sender)).toBe(shared);
  });

  it('a stream is trimmed behind the live members’ groups only: a dead member’s group does not hold it back', async () => {
    await using cluster = await testCluster();
    const key = cluster.keys.run('r1').blob;
    const readers = [collector(key, 'n1'), collector(key, 'n2'), collector(key, 'n3')];
    for (const r of readers) await r.consumer.start();
    const sender = new FrameSender(cluster.redis, key, 'n1', log);
    await sender.pushBinary('file', [{ head: { key: 'a' }, body: randomBytes(10) }]);
    await sender.flush();
    await until('caught up', () => framesCaughtUp(cluster.redis, key, ['n1', 'n2', 'n3']));
    await readers[2]?.consumer.stop(); // n3 dies: its group stays where it was
    await sender.pushBinary('file', [{ head: { key: 'b' }, body: randomBytes(10) }]);
    await sender.flush();
    await until('n1 and n2 caught up', () => framesCaughtUp(cluster.redis, key, ['n1', 'n2']));
    await trimFrames(cluster.redis, key);
    expect(await cluster.redis.xlen(key)).toBe(1); // held back by n3's group
    await trimFrames(cluster.redis, key, ['n1', 'n2']);
    expect(await cluster.redis.xlen(key)).toBe(0);
    for (const r of readers.slice(0, 2)) await r.consumer.stop();
  });

  it('the vector channel: points reach the other member’s sqlite-vec collection exactly, deletes in order, idempotent', async () => {
    await using cluster = await testCluster();
    using a = createTempDir('gf-vec-a-');
    using b = createTempDir('gf-vec-b-');
    const key = cluster.keys.run('r1').vectors;
    const dims = 8;
    const familyA = new SqliteVecFamily({ root: join(a.path, 'vector'), collection: 'greenfinger_text' });
    const familyB = new SqliteVecFamily({ root: join(b.path, 'vector'), collection: 'greenfinger_text' });
    const sender = new FrameSender(cluster.redis, key, 'n1', log);
    const wrapped = replicatedVectors(familyA, (c, v) => (c === 'c1' && v === 0 ? sender : undefined));
    const consumer = vectorReplicaConsumer({ redisUrl: testRedisUrl, key, node: 'n2', family: familyB, log });
    await consumer.start();
    const payload = (resourceId: string, chunkIndex: number): TextPointPayload => ({
      resourceId,
      catalogId: 'c1',
      catalogName: 'docs',
      version: 0,
      catalogVersion: 'c1:0',
      chunkIndex,
      chunk: `chunk ${chunkIndex} of ${resourceId}`,
      url: `http://x/${resourceId}`,
      title: resourceId,
      textPath: `assets/c1/v0/pages/${resourceId}.txt`,
      linkDensity: 0.1,
    });
    const vec = (seed: number) => Float32Array.from({ length: dims }, (_, i) => Math.sin(seed * 7 + i) + 1e-7 * i);
    const points: VectorPoint[] = [];
    for (let r = 0; r < 30; r++) {
      for (let c = 0; c < 3; c++)
        points.push({
          id: `00000000-0000-5000-8000-${String(r * 3 + c).padStart(12, '0')}`,
          vector: vec(r * 3 + c),
          payload: payload(`r${r}`, c),
        });
    }
    const storeA = wrapped.open(dims);
    await storeA.upsert(points);
    // An update rewrote page r0 with one chunk: its points go, then its new one comes.
    await storeA.deleteResource('c1', 0, 'r0');
    await storeA.upsert([{ ...(points[0] as VectorPoint), vector: vec(1000) }]);
    await sender.flush();
    await until('caught up', () => framesCaughtUp(cluster.redis, key, ['n2']), 15_000);
    const storeB = familyB.open(dims);
    expect(await storeB.countVersion('c1', 0)).toBe(88);
    expect(await storeB.countResource('c1', 0, 'r0')).toBe(1);
    const hits = await storeB.search({ vector: vec(5), scopes: [{ catalogId: 'c1', version: 0 }], limit: 5 });
    const hitsA = await familyA
      .open(dims)
      .search({ vector: vec(5), scopes: [{ catalogId: 'c1', version: 0 }], limit: 5 });
    expect(hits).toEqual(hitsA);
    expect(hits[0]?.payload).toEqual(payload('r1', 2));
    // The same points again: nothing more.
    await sender.pushBinary(
      'points',
      points.slice(3).map((p) => ({
        head: { i: p.id, d: dims, p: p.payload },
        body: Buffer.from(p.vector.buffer, p.vector.byteOffset, p.vector.byteLength),
      })),
    );
    await sender.flush();
    await until('caught up again', () => framesCaughtUp(cluster.redis, key, ['n2']), 15_000);
    expect(await storeB.countVersion('c1', 0)).toBe(88);
    await consumer.stop();
    await familyA.close();
    await familyB.close();
  });
});
