export * from './create-embedding-client.js';
export type * from './embedding-client.js';
export * from './embedding-spec.js';
export type { WorkerReply, WorkerRequest } from './embedding-worker.js';
export * from './normalize.js';
export * from './pooled-embedding-client.js';
export * from './transformers-embedding-client.js';
export * from './use-lite-embedding-client.js';
export * from './worker-embedding-client.js';
