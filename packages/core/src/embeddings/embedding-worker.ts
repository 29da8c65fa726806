import { parentPort, workerData } from 'node:worker_threads';
import type { EmbeddingClient } from './embedding-client.js';
import { type EmbeddingSpec, loadEmbeddingClient } from './embedding-spec.js';

/** Messages from the WorkerEmbeddingClient. */
export type WorkerRequest = { id: number; op: 'documents' | 'query'; texts: string[] } | { id: number; op: 'close' };

/** Messages to the WorkerEmbeddingClient. */
export type WorkerReply =
  | { op: 'ready'; model: string; dims: number; provider: string; description: string }
  | { op: 'failed'; message: string }
  | { id: number; op: 'vectors'; vectors: Float32Array[] }
  | { id: number; op: 'error'; message: string }
  | { id: number; op: 'closed' };

function transferable(vectors: Float32Array[]): ArrayBuffer[] {
  const buffers = new Set<ArrayBuffer>();
  for (const v of vectors) {
    if (v.byteOffset === 0 && v.byteLength === v.buffer.byteLength && v.buffer instanceof ArrayBuffer)
      buffers.add(v.buffer);
  }
  return [...buffers];
}

const port = parentPort;
if (port) {
  const { spec } = workerData as { spec: EmbeddingSpec };
  const send = (reply: WorkerReply, transfer: ArrayBuffer[] = []): void => port.postMessage(reply, transfer);
  const loading = loadEmbeddingClient(spec);
  loading.then(
    (c) => send({ op: 'ready', model: c.model, dims: c.dims, provider: c.provider, description: c.describe() }),
    (err: unknown) => {
      const message = err instanceof Error ? err.message : String(err);
      const fix = (err as { fix?: string }).fix;
      send({ op: 'failed', message: fix ? `${message} — ${fix}` : message });
    },
  );
  port.on('message', (msg: WorkerRequest) => {
    void (async () => {
      let client: EmbeddingClient;
      try {
        client = await loading;
      } catch {
        return;
      }
      if (msg.op === 'close') {
        await client.close();
        send({ id: msg.id, op: 'closed' });
        port.close();
        return;
      }
      try {
        let vectors: Float32Array[];
        if (msg.op === 'documents') vectors = await client.embedDocuments(msg.texts);
        else {
          vectors = [];
          for (const t of msg.texts) vectors.push(await client.embedQuery(t));
        }
        send({ id: msg.id, op: 'vectors', vectors }, transferable(vectors));
      } catch (err) {
        send({ id: msg.id, op: 'error', message: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
}
