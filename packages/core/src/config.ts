/**
 * Every setting, in three files under settings/: the node settings and their defaults (node-settings.ts), the
 * environment variable of each and the few read before settings load (settings-env.ts: the one place that reads the
 * environment), and the catalog settings schema (catalog-settings.ts). `.env.example` lists the same table.
 */
export * from './settings/catalog-settings.js';
export * from './settings/node-settings.js';
export * from './settings/settings-env.js';
