export * from './alert-columns.js';
export * from './alert-service.js';
export * from './alert-store.js';
export * from './pg-alert-store.js';
export * from './sqlite-alert-store.js';
export * from './webhook-address.js';
export * from './webhook-sender.js';
