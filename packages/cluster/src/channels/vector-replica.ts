import type { TextPointPayload, VectorPoint, VectorStore, VectorStoreFamily } from '@greenfinger/core';
import { num, str } from '../plumbing/wire.js';
import {
  type BinaryItem,
  type FrameConsumer,
  type FrameSender,
  type ReplicaStream,
  replicaConsumer,
} from './multicast-frames.js';

/** The families whose vectors are on the member itself (embedded): only they are replicated. */
const PER_NODE_FAMILIES = new Set(['sqlite-vec']);

/** Is this vector store family per node (embedded sqlite-vec), so the others need its points sent to them? */
export function isPerNodeVectorFamily(family: VectorStoreFamily): boolean {
  return PER_NODE_FAMILIES.has(family.name);
}

type SenderOf = (catalogId: string, version: number) => FrameSender | undefined;

/**
 * One frame item per point: the head `{i: id, d: dims, p: payload}` in JSON, the vector as its Float32 bytes
 * (little-endian, as the members' machines store them); a page's points removed before it is written again (an
 * update rewriting a page) travel as `{x: 'delete', d, c: catalogId, v: version, r: resourceId}` with no bytes, in
 * the same kind so that they are applied in the order they were made.
 */
function pointItem(point: VectorPoint, dims: number): BinaryItem {
  const v = point.vector;
  return { head: { i: point.id, d: dims, p: point.payload }, body: Buffer.from(v.buffer, v.byteOffset, v.byteLength) };
}

function replicatedStore(store: VectorStore, senderOf: SenderOf): VectorStore {
  const upsert = async (points: VectorPoint[]) => {
    await store.upsert(points);
    const byRun = new Map<FrameSender, BinaryItem[]>();
    for (const p of points) {
      const sender = senderOf(p.payload.catalogId, p.payload.version);
      if (!sender) continue;
      const list = byRun.get(sender) ?? [];
      list.push(pointItem(p, store.dims));
      byRun.set(sender, list);
    }
    for (const [sender, items] of byRun) await sender.pushBinary('points', items);
  };
  const deleteResource = async (catalogId: string, version: number, resourceId: string) => {
    const n = await store.deleteResource(catalogId, version, resourceId);
    const head = { x: 'delete', d: store.dims, c: catalogId, v: version, r: resourceId };
    await senderOf(catalogId, version)?.pushBinary('points', [{ head, body: Buffer.alloc(0) }]);
    return n;
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'upsert') return upsert;
      if (prop === 'deleteResource') return deleteResource;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/**
 * The sending half of the vector channel (seed 000: multicast excluding self, buffered, only when the store behind
 * it is per node): the points a cluster run upserts (`senderOf` names the runs in progress) are written here, then
 * sent to the other members in binary frames, so each member's embedded vector store holds every page of the run
 * and meaning search on any member finds all of them. A shared family (Qdrant, say) is returned as it is.
 */
export function replicatedVectors(family: VectorStoreFamily, senderOf: SenderOf): VectorStoreFamily {
  if (!isPerNodeVectorFamily(family)) return family;
  const opened = new Map<number, VectorStore>();
  return new Proxy(family, {
    get(target, prop) {
      if (prop === 'open') {
        return (dims: number) => {
          let store = opened.get(dims);
          if (!store) {
            store = replicatedStore(target.open(dims), senderOf);
            opened.set(dims, store);
          }
          return store;
        };
      }
      if (prop === 'close') {
        return async () => {
          opened.clear();
          await target.close();
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** A point from a frame item; undefined for one this member does not understand (logged, skipped). */
function pointOf(item: BinaryItem): { dims: number; point: VectorPoint } | undefined {
  const id = str(item.head, 'i');
  const dims = num(item.head, 'd');
  const payload = item.head.p as TextPointPayload | undefined;
  if (!id || !dims || !payload || typeof payload !== 'object' || item.body.length !== dims * 4) return undefined;
  if (typeof payload.catalogId !== 'string' || typeof payload.version !== 'number') return undefined;
  // Copied into a buffer of its own: the frame's bytes need not be 4-byte aligned.
  const vector = new Float32Array(dims);
  new Uint8Array(vector.buffer).set(item.body);
  return { dims, point: { id, vector, payload } };
}

/**
 * The receiving half: the other members' points upserted into this member's own family, in the collection of their
 * width (the same ids again when a frame comes twice: idempotent), and their page deletes applied in order.
 */
export function vectorReplicaConsumer(
  options: ReplicaStream & {
    /** The member's family itself (not the replicating wrapper: what arrives is not sent again). */
    family: VectorStoreFamily;
  },
): FrameConsumer {
  const { family } = options;
  return replicaConsumer(options, 'vector-replica', async (kind, items, log) => {
    if (kind !== 'points') return;
    // Consecutive points of one width go in one upsert; a delete is applied where it came.
    let run: VectorPoint[] = [];
    let runDims = 0;
    const upsertRun = async () => {
      if (run.length > 0) await family.open(runDims).upsert(run);
      run = [];
    };
    let skipped = 0;
    for (const item of items as BinaryItem[]) {
      if (item.head.x === 'delete') {
        const [d, c, v, r] = [num(item.head, 'd'), str(item.head, 'c'), num(item.head, 'v'), str(item.head, 'r')];
        if (!d || !c || v === undefined || !r) {
          skipped++;
          continue;
        }
        await upsertRun();
        await family.open(d).deleteResource(c, v, r);
        continue;
      }
      const p = pointOf(item);
      if (!p) {
        skipped++;
        continue;
      }
      if (p.dims !== runDims) await upsertRun();
      runDims = p.dims;
      run.push(p.point);
    }
    await upsertRun();
    if (skipped > 0) log.warn({ skipped }, 'vector points not understood; skipped');
  });
}
