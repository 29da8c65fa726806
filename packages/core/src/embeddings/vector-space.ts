import type { Settings } from '../config.js';

/**
 * The part of a vector collection's name that says which embedding provider and model wrote it: none for the local
 * model (`greenfinger_text_512`, as always), `{provider}-{model}` for an endpoint (`greenfinger_text_openai-bge-m3_1024`).
 * With the width after it, a change of provider, model or width writes a new collection and never mixes vectors.
 */
export function vectorSpace(
  settings: Partial<Pick<Settings, 'embeddingProvider' | 'embeddingModel'>>,
): string | undefined {
  const provider = settings.embeddingProvider ?? 'local';
  if (provider === 'local') return undefined;
  const model = (settings.embeddingModel ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64);
  return model ? `${provider}-${model}` : provider;
}

/** The collection base a node's text vectors go to: GF_VECTOR_COLLECTION, then the space when there is one. */
export function vectorCollectionName(
  settings: Pick<Settings, 'vectorCollection'> & Partial<Pick<Settings, 'embeddingProvider' | 'embeddingModel'>>,
): string {
  const space = vectorSpace(settings);
  return space ? `${settings.vectorCollection}_${space}` : settings.vectorCollection;
}
