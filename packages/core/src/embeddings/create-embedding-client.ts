import { resolve } from 'node:path';
import type { Settings } from '../config.js';
import type { EmbeddingClient } from './embedding-client.js';
import { type EmbeddingSpec, loadEmbeddingClient } from './embedding-spec.js';
import { findOnnxModel } from './transformers-embedding-client.js';
import { WorkerEmbeddingClient, type WorkerEmbeddingOptions } from './worker-embedding-client.js';

export interface CreateEmbeddingOptions extends WorkerEmbeddingOptions {
  /** Run the model on the calling thread instead of a worker thread. @default false */
  inProcess?: boolean;
}

/**
 * Which model to load, decided without loading anything: the ONNX model `<modelDir>/<textModel>` when it is
 * there, else the Universal Sentence Encoder shipped in npm, with the reason. Never downloads.
 */
export function chooseEmbeddingSpec(settings: Pick<Settings, 'modelDir' | 'textModel'>): EmbeddingSpec {
  const modelDir = resolve(settings.modelDir);
  if (findOnnxModel(modelDir, settings.textModel)) return { kind: 'transformers', modelDir, model: settings.textModel };
  return { kind: 'use-lite', reason: `${settings.textModel} not found in ${modelDir}` };
}

/**
 * The text EmbeddingClient of this node. By default it runs in a worker thread so embedding never blocks the
 * event loop; `describe()` says which model was loaded, from where, and why.
 */
export async function createEmbeddingClient(
  settings: Pick<Settings, 'modelDir' | 'textModel'>,
  options: CreateEmbeddingOptions = {},
): Promise<EmbeddingClient> {
  const spec = chooseEmbeddingSpec(settings);
  return options.inProcess ? loadEmbeddingClient(spec) : WorkerEmbeddingClient.start(spec, options);
}
