/** Turns text into vectors. Implementations: local (transformers.js ONNX, or a model shipped in an npm package). */
export interface EmbeddingClient {
  /** e.g. 'local' */
  readonly provider: string;
  /** Model id actually loaded, e.g. 'multilingual-e5-small' or 'use-lite-512'. */
  readonly model: string;
  /** Vector width; part of the collection name. */
  readonly dims: number;
  /** Documents (passages). Normalised vectors, one per input. */
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
  /** A search query. */
  embedQuery(text: string): Promise<Float32Array>;
  /** A line for the startup report: which model, from where, and why. */
  describe(): string;
  close(): Promise<void>;
}
