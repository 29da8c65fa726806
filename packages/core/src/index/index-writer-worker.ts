import { parentPort, workerData } from 'node:worker_threads';
import type { IndexDocument } from './search-index.js';
import { SqliteFtsIndex } from './sqlite-fts-index.js';

/** Requests the main thread sends; each is answered with `{ id, error? }`. */
export type IndexWriterOp =
  | { op: 'upsert'; docs: IndexDocument[] }
  | { op: 'purge'; catalogId: string }
  | { op: 'close' };
export type IndexWriterRequest = IndexWriterOp & { id: number };
export interface IndexWriterReply {
  id: number;
  error?: string;
}

const { root, prefix } = workerData as { root: string; prefix: string };
const index = new SqliteFtsIndex({ root, prefix });

parentPort?.on('message', (req: IndexWriterRequest) => {
  const reply = (error?: unknown): void =>
    parentPort?.postMessage({
      id: req.id,
      ...(error ? { error: error instanceof Error ? error.message : String(error) } : {}),
    } satisfies IndexWriterReply);
  if (req.op === 'upsert') index.upsert(req.docs).then(() => reply(), reply);
  else if (req.op === 'purge') index.purge(req.catalogId).then(() => reply(), reply);
  else index.close().then(() => reply(), reply);
});
