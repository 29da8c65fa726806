import { type BlobStore, LocalBlobStore, OffThreadBlobStore } from '@greenfinger/core/internal';
import { str } from '../plumbing/wire.js';
import {
  type BinaryItem,
  type FrameConsumer,
  type FrameSender,
  type ReplicaStream,
  replicaConsumer,
} from './multicast-frames.js';

/** The files a crawl writes for its pages and pictures: `assets/{catalogId}/v{n}/pages/…` and `…/images/…`. */
const FILE_KEY = /^assets\/([^/]+)\/v(\d+)\/(?:pages|images)\//;
/** The families whose files are on the member itself (per node): only they are replicated. */
const LOCAL_FAMILIES = new Set(['local']);
/** Files written at once by the receiving half. */
const WRITES_AT_ONCE = 64;

/** Is this blob store per node (the local family), so the others need its files sent to them? */
export function isPerNodeBlobStore(store: BlobStore): boolean {
  return LOCAL_FAMILIES.has(store.name);
}

function bytesOf(data: Uint8Array | string): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.length);
}

/**
 * The sending half of the `blob` channel (seed 000: multicast excluding self, buffered, only when the store behind
 * it is per node): every page and picture file a cluster run writes (`senderOf` names the runs in progress) is
 * written here, then sent to the other members as binary frames (the key in the frame's JSON header, the bytes as
 * they are), so each member's data root holds every page's files. A shared store (an object store every member
 * reads) is returned as it is. The writer a crawl opens (`openWriter`) is wrapped the same way.
 */
export function replicatedBlobs(
  store: BlobStore,
  senderOf: (catalogId: string, version: number) => FrameSender | undefined,
): BlobStore {
  if (!isPerNodeBlobStore(store)) return store;
  const send = async (key: string, data: Uint8Array | string) => {
    const m = FILE_KEY.exec(key);
    const sender = m ? senderOf(m[1] as string, Number(m[2])) : undefined;
    if (sender) await sender.pushBinary('file', [{ head: { key }, body: bytesOf(data) }]);
  };
  const wrap = (inner: BlobStore, close: () => Promise<void>): BlobStore => {
    const wrapped: BlobStore = {
      name: inner.name,
      put: async (key, data) => {
        await inner.put(key, data);
        await send(key, data);
      },
      get: (key) => inner.get(key),
      getText: (key) => inner.getText(key),
      exists: (key) => inner.exists(key),
      stat: (prefix) => inner.stat(prefix),
      deletePrefix: (prefix) => inner.deletePrefix(prefix),
      list: (prefix) => inner.list(prefix),
      close,
    };
    const open = inner.openWriter?.bind(inner);
    if (open) {
      wrapped.openWriter = (options) => {
        const writer = open(options);
        // The store itself (no faster writer): this wrapper, so the run does not close the node's store.
        return writer === inner ? wrapped : wrap(writer, () => writer.close());
      };
    }
    return wrapped;
  };
  return wrap(store, () => store.close());
}

/**
 * The receiving half: the other members' files written into this member's own store under the same key (the same
 * bytes again when a frame comes twice: idempotent).
 */
export function blobReplicaConsumer(
  options: ReplicaStream & {
    /** The member's store itself (not the replicating wrapper: what arrives is not sent again). */
    store: BlobStore;
  },
): FrameConsumer {
  // The local store's writes go to a thread of their own (mkdir, open, write, close off the event loop, as a crawl's
  // own files), opened with the first frame and closed with the consumer.
  let writer: BlobStore | undefined;
  const target = (): BlobStore => {
    writer ??= options.store instanceof LocalBlobStore ? new OffThreadBlobStore(options.store) : options.store;
    return writer;
  };
  return replicaConsumer(
    options,
    'blob-replica',
    async (kind, items) => {
      if (kind !== 'file') return;
      const files = (items as BinaryItem[]).flatMap((item) => {
        const key = str(item.head, 'key');
        return key && FILE_KEY.test(key) ? [{ key, body: item.body }] : [];
      });
      for (let i = 0; i < files.length; i += WRITES_AT_ONCE) {
        await Promise.all(files.slice(i, i + WRITES_AT_ONCE).map((f) => target().put(f.key, f.body)));
      }
    },
    {
      // Up to 8 MiB a read (frames are at most 1 MiB).
      count: 8,
      onStop: async () => {
        if (writer && writer !== options.store) await writer.close();
      },
    },
  );
}
