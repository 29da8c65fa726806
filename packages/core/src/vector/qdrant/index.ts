export * as qdrantErrors from './qdrant-errors.js';
export { QDRANT_KEY_SETTING, QDRANT_URL_SETTING } from './qdrant-errors.js';
export * from './qdrant-family.js';
export * as qdrantRequests from './qdrant-requests.js';
export * from './qdrant-store.js';
