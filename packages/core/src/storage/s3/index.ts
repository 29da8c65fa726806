export * from './s3-blob-store.js';
export * as s3Keys from './s3-keys.js';
