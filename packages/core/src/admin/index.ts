export * from './admin-writer.js';
export * from './catalog-deletion.js';
export type * from './node-stores.js';
export * from './optimize-version.js';
export * from './page-removal.js';
export * from './url-eraser.js';
export * from './version-eraser.js';
