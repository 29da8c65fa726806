export * from './catalog-registry.js';
export * from './elasticsearch/index.js';
export { FTS_EXTENSION_PATH, ftsExtensionProblem } from './fts-extension.js';
export * from './fts-query.js';
export * from './off-thread-index.js';
export * from './search-cursor.js';
export type * from './search-index.js';
export * from './sqlite-fts-index.js';
