import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../errors.js';
import type { BlobWriterReply, BlobWriterRequest } from './blob-writer-protocol.js';
import { LocalBlobStore } from './local-blob-store.js';

export type { BlobPut, BlobWriterOp, BlobWriterReply, BlobWriterRequest } from './blob-writer-protocol.js';

/** One store per root: its cache of directories made is what saves the mkdir of every later file. */
const stores = new Map<string, LocalBlobStore>();

/**
 * Serve one request of OffThreadBlobStore on the thread that hosts it (a crawl's extraction worker): the files are
 * written with synchronous system calls, one after the other, before the reply.
 */
export function serveBlobWriter(req: BlobWriterRequest, post: (reply: BlobWriterReply) => void): void {
  let store = stores.get(req.root);
  if (!store) {
    store = new LocalBlobStore(req.root);
    stores.set(req.root, store);
  }
  const failures: Array<[number, string]> = [];
  req.puts.forEach(({ key, data }, i) => {
    try {
      (store as LocalBlobStore).putSync(key, data);
    } catch (err) {
      failures.push([i, errorMessage(err)]);
    }
  });
  post({ channel: 'blobs', id: req.id, ...(failures.length > 0 ? { failures } : {}) });
}

// Started as its own thread (OffThreadBlobStore without a lent thread).
const port = parentPort;
if (port && (workerData as { role?: string } | undefined)?.role === 'blob-writer') {
  port.on('message', (req: BlobWriterRequest) => serveBlobWriter(req, (r) => port.postMessage(r)));
}
