export * from './catalog-registry.js';
export * from './fts-query.js';
export * from './off-thread-index.js';
export * from './search-cursor.js';
export type * from './search-index.js';
export * from './sqlite-fts-index.js';
