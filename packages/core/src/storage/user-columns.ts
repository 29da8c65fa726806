import { CrawlerError } from '../errors.js';
import type { TableSpec } from './record-columns.js';
import type { UserRow } from './record-store.js';

/** gf_user, in the column order of schema.prisma. */
export const USER: TableSpec<UserRow> = {
  table: 'gf_user',
  conflict: ['name'],
  columns: [
    { column: 'name', key: 'name', kind: 'text' },
    { column: 'password_hash', key: 'passwordHash', kind: 'text' },
    { column: 'role', key: 'role', kind: 'text' },
    { column: 'created_at', key: 'createdAt', kind: 'time' },
    { column: 'updated_at', key: 'updatedAt', kind: 'time' },
  ],
};

/** The error for creating a user whose name is taken. */
export function userExists(name: string): CrawlerError {
  return new CrawlerError('CONFLICT', `user "${name}" already exists`, {
    fix: `choose another name, or change the password with greenfinger user passwd ${name}`,
  });
}
