import { resolve } from 'node:path';
import type { Settings } from '../config.js';
import type { EmbeddingClient } from './embedding-client.js';
import { type EmbeddingSpec, loadEmbeddingClient } from './embedding-spec.js';
import { connectHttpEmbedding } from './http-embedding-client.js';
import { PooledEmbeddingClient } from './pooled-embedding-client.js';
import { findOnnxModel } from './transformers-embedding-client.js';
import { findUseLiteOnnx } from './use-lite-onnx-embedding-client.js';
import { WorkerEmbeddingClient, type WorkerEmbeddingOptions } from './worker-embedding-client.js';

export interface CreateEmbeddingOptions extends WorkerEmbeddingOptions {
  /** Run the model on the calling thread instead of a worker thread. @default false */
  inProcess?: boolean;
  /**
   * Worker threads embedding documents; the first also answers queries, the others start on the first batch of
   * documents. @default settings.embeddingWorkers, else 1
   */
  workers?: number;
}

/**
 * Which model to load, decided without loading anything: the ONNX model `<modelDir>/<textModel>` when it is
 * there, else the Universal Sentence Encoder shipped in npm, with the reason — run by onnxruntime-node from the
 * graph the build converts from its weights when that graph is there (`useLiteOnnx`, by default
 * findUseLiteOnnx(); null: TF.js), else by TF.js. Never downloads.
 */
export function chooseEmbeddingSpec(
  settings: Pick<Settings, 'modelDir' | 'textModel'>,
  useLiteOnnx: string | null | undefined = findUseLiteOnnx(),
): EmbeddingSpec {
  const modelDir = resolve(settings.modelDir);
  if (findOnnxModel(modelDir, settings.textModel)) return { kind: 'transformers', modelDir, model: settings.textModel };
  const reason = `${settings.textModel} not found in ${modelDir}`;
  if (useLiteOnnx) return { kind: 'use-lite-onnx', path: useLiteOnnx, reason };
  return { kind: 'use-lite', reason };
}

type EndpointSetting =
  | 'embeddingProvider'
  | 'embeddingUrl'
  | 'embeddingModel'
  | 'embeddingApiKey'
  | 'embeddingBatch'
  | 'embeddingTimeoutMs'
  | 'embeddingRetries';

/**
 * The text EmbeddingClient of this node: GF_EMBEDDING_PROVIDER=ollama or openai asks that endpoint
 * (http-embedding-client.ts, its width read from a first answer); local, by default it runs in a worker thread so embedding never blocks the
 * event loop; `describe()` says which model was loaded, from where, and why.
 */
export async function createEmbeddingClient(
  settings: Pick<Settings, 'modelDir' | 'textModel'> & Partial<Pick<Settings, 'embeddingWorkers' | EndpointSetting>>,
  options: CreateEmbeddingOptions = {},
): Promise<EmbeddingClient> {
  const provider = settings.embeddingProvider ?? 'local';
  if (provider !== 'local') return connectHttpEmbedding({ ...settings, embeddingProvider: provider });
  const spec = chooseEmbeddingSpec(settings);
  if (options.inProcess) return loadEmbeddingClient(spec);
  const workers = Math.max(1, Math.trunc(options.workers ?? settings.embeddingWorkers ?? 1));
  const first = await WorkerEmbeddingClient.start(spec, options);
  if (workers === 1) return first;
  const more = async (): Promise<EmbeddingClient[]> => {
    const started = await Promise.allSettled(
      Array.from({ length: workers - 1 }, () => WorkerEmbeddingClient.start(spec, options)),
    );
    const ok = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) {
      await Promise.all(ok.map((c) => c.close()));
      throw (failed as PromiseRejectedResult).reason;
    }
    return ok;
  };
  return new PooledEmbeddingClient(first, more, workers);
}
