export * from './component-factory.js';
export * from './components.js';
export * from './publications.js';
export * from './registries.js';
export * from './run-assembly.js';
export * from './store-providers.js';
