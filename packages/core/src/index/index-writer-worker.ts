import { parentPort, workerData } from 'node:worker_threads';
import type { IndexWriterReply, IndexWriterRequest } from './index-writer-protocol.js';
import type { FtsOptimizeStats } from './search-index.js';
import { SqliteFtsIndex } from './sqlite-fts-index.js';

export type { IndexWriterOp, IndexWriterReply, IndexWriterRequest } from './index-writer-protocol.js';

let index: SqliteFtsIndex | undefined;
let openError: unknown;

/**
 * Serve one request of the index writer, on whichever thread hosts it: its own (started by OffThreadIndex) or
 * an extraction worker lent to it. Requests arrive in order and each runs to completion synchronously inside
 * (better-sqlite3), so they are applied in the order they were sent.
 */
export function serveIndexWriter(req: IndexWriterRequest, post: (reply: IndexWriterReply) => void): void {
  const reply = (error?: unknown, stats?: FtsOptimizeStats): void =>
    post({
      channel: 'index',
      id: req.id,
      ...(error ? { error: error instanceof Error ? error.message : String(error) } : {}),
      ...(stats ? { stats } : {}),
    });
  try {
    if (req.op === 'open') {
      try {
        index = new SqliteFtsIndex(req.options);
      } catch (err) {
        openError = err;
        throw err;
      }
      reply();
      return;
    }
    if (!index) throw openError ?? new Error('the index writer was not opened');
    if (req.op === 'optimize') {
      index.optimize(req.catalogId, req.version).then((stats) => reply(undefined, stats), reply);
      return;
    }
    const done =
      req.op === 'upsert' ? index.upsert(req.docs) : req.op === 'purge' ? index.purge(req.catalogId) : index.close();
    done.then(() => reply(), reply);
  } catch (err) {
    reply(err);
  }
}

// Started as its own thread (OffThreadIndex without a lent thread).
const port = parentPort;
if (port && (workerData as { role?: string } | undefined)?.role === 'index-writer') {
  port.on('message', (req: IndexWriterRequest) => serveIndexWriter(req, (r) => port.postMessage(r)));
}
