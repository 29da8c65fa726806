import type { EmbeddingClient } from './embedding-client.js';
import type { TransformersEmbeddingOptions } from './transformers-embedding-client.js';
import type { UseLiteEmbeddingOptions } from './use-lite-embedding-client.js';
import type { UseLiteOnnxEmbeddingOptions } from './use-lite-onnx-embedding-client.js';

/** A serialisable recipe for an in-process client, so a worker thread can build the same one. */
export type EmbeddingSpec =
  | ({ kind: 'transformers' } & TransformersEmbeddingOptions)
  | ({ kind: 'use-lite' } & UseLiteEmbeddingOptions)
  | ({ kind: 'use-lite-onnx' } & UseLiteOnnxEmbeddingOptions);

/** Builds the in-process client a spec describes (loads only the library that spec needs). */
export async function loadEmbeddingClient(spec: EmbeddingSpec): Promise<EmbeddingClient> {
  if (spec.kind === 'transformers') {
    const { TransformersEmbeddingClient } = await import('./transformers-embedding-client.js');
    return TransformersEmbeddingClient.load(spec);
  }
  const { UseLiteEmbeddingClient } = await import('./use-lite-embedding-client.js');
  if (spec.kind === 'use-lite-onnx') {
    // the same model and vectors; when its graph or onnxruntime-node cannot load, TF.js runs it, saying why
    const { UseLiteOnnxEmbeddingClient } = await import('./use-lite-onnx-embedding-client.js');
    try {
      return await UseLiteOnnxEmbeddingClient.load(spec);
    } catch (err) {
      const why = `the ONNX graph did not load (${(err as Error).message})`;
      return UseLiteEmbeddingClient.load({
        batchSize: spec.batchSize,
        reason: spec.reason ? `${spec.reason}; ${why}` : why,
      });
    }
  }
  return UseLiteEmbeddingClient.load(spec);
}
