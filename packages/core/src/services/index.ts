export * from './catalog-service.js';
export * from './crawl-service.js';
export * from './greenfinger.js';
export * from './replay-service.js';
export * from './run-lock.js';
export * from './search-service.js';
export * from './version-service.js';
