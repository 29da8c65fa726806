export * from './greenfinger.js';
export * from './catalog-service.js';
export * from './crawl-service.js';
export * from './search-service.js';
export * from './run-lock.js';
