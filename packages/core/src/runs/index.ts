export * from './crawl-runner.js';
export * from './fetch-timings.js';
export * from './metrics-format.js';
export * from './run-lock.js';
export * from './run-registry.js';
