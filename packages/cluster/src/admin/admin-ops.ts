import type { AdminWriter } from '@greenfinger/core';

/** The administrative operations the leader serves, by name. */
export const ADMIN_OPS = [
  'createCatalog',
  'saveCatalog',
  'updateDefinition',
  'deleteCatalog',
  'setRunningState',
  'publish',
  'publishWords',
  'restorePublished',
  'prune',
  'deleteVersions',
  'deleteUrl',
  'createUser',
  'updateUser',
  'deleteUser',
  'revokeToken',
  'createAlert',
  'deleteAlert',
  'recordPush',
] as const satisfies ReadonlyArray<keyof AdminWriter>;

/** One of them. */
export type AdminOp = (typeof ADMIN_OPS)[number];
