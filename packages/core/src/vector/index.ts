export * from './chunking.js';
export * from './elasticsearch/index.js';
export * from './sqlite-vec-family.js';
export * from './sqlite-vec-store.js';
export * from './vector-searcher.js';
export type * from './vector-store.js';
