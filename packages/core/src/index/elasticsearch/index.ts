export * from './elasticsearch-index.js';
export { checkEs, ES_URL_SETTING, type EsConnectionOptions, esConnection } from './es-client.js';
