export * from './create-record-database.js';
export * from './local-blob-store.js';
export * from './migrate.js';
export * from './off-thread-blob-store.js';
export * from './pg-record-database.js';
export type * from './record-store.js';
export * from './sqlite-record-database.js';
