export * from './counters.js';
export * from './crawl-coordinator.js';
export * from './crawl-engine.js';
export * from './image-probe.js';
export * from './inflight-store.js';
export * from './run-report.js';
