import type { EmbeddingClient } from './embedding-client.js';
import type { TransformersEmbeddingOptions } from './transformers-embedding-client.js';
import type { UseLiteEmbeddingOptions } from './use-lite-embedding-client.js';

/** A serialisable recipe for an in-process client, so a worker thread can build the same one. */
export type EmbeddingSpec =
  | ({ kind: 'transformers' } & TransformersEmbeddingOptions)
  | ({ kind: 'use-lite' } & UseLiteEmbeddingOptions);

/** Builds the in-process client a spec describes (loads only the library that spec needs). */
export async function loadEmbeddingClient(spec: EmbeddingSpec): Promise<EmbeddingClient> {
  if (spec.kind === 'transformers') {
    const { TransformersEmbeddingClient } = await import('./transformers-embedding-client.js');
    return TransformersEmbeddingClient.load(spec);
  }
  const { UseLiteEmbeddingClient } = await import('./use-lite-embedding-client.js');
  return UseLiteEmbeddingClient.load(spec);
}
