/**
 * `@greenfinger/core/internal`: every module of core, for Greenfinger's own packages (cluster, api, shell) and its
 * tests. Nothing here is promised to a library user: names may move or change in any release. A library user imports
 * `@greenfinger/core` (index.ts), the deliberate public list (docs/developer-guide.md, "Public API").
 */
export type * from './acceptors/acceptor.js';
export * from './acceptors/index.js';
export * from './admin/index.js';
export * from './alerts/index.js';
export * from './compose/index.js';
export * from './config.js';
export type * from './content/content-extractor.js';
export * from './content/index.js';
export * from './dedup/index.js';
export type * from './dedup/url-filter.js';
export type * from './embeddings/embedding-client.js';
export * from './embeddings/index.js';
export * from './engine/index.js';
export * from './error-table.js';
export * from './errors.js';
export * from './export/index.js';
export * from './feeds/index.js';
export type * from './fetch/extractor.js';
export * from './fetch/index.js';
export type * from './frontier/frontier.js';
export * from './frontier/index.js';
export * from './ids.js';
export * from './index/index.js';
export type * from './index/search-index.js';
export * from './layout.js';
export * from './logger.js';
export * from './model.js';
export * from './outcomes.js';
export * from './outputs/index.js';
export * from './registry.js';
export * from './runs/index.js';
export * from './services/change-service.js';
export * from './services/index.js';
export * from './settings/schedule.js';
export type * from './storage/blob-store.js';
export * from './storage/index.js';
export * from './storage/s3/index.js';
export * from './url/index.js';
export * from './vector/index.js';
export * from './vector/qdrant/index.js';
export type * from './vector/vector-store.js';
