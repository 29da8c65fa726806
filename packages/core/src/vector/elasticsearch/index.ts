export * from './es-vector-family.js';
export { EsVectorStore } from './es-vector-store.js';
