import { CrawlerError } from '../errors.js';
import type { UserRole } from '../storage/record-store.js';

/** Who may sign in: a letter or digit, then up to 63 of letters, digits and `. _ @ -`. */
export const USER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
export const PASSWORD_MIN_CHARS = 8;
export const PASSWORD_MAX_CHARS = 1024;
export const USER_ROLES: readonly UserRole[] = ['admin', 'support'];

/** @throws CrawlerError BAD_INPUT naming the rule */
export function checkUserName(name: string): string {
  if (!USER_NAME_PATTERN.test(name)) {
    throw new CrawlerError('BAD_INPUT', `user name "${name}" is not allowed`, {
      fix: 'use 1 to 64 letters, digits and . _ @ - starting with a letter or digit, e.g. ada or ada@example.com',
    });
  }
  return name;
}

/** Characters, not UTF-16 units: an emoji counts once. @throws CrawlerError BAD_INPUT naming the bound */
export function checkPassword(password: string): string {
  const chars = [...password].length;
  if (chars < PASSWORD_MIN_CHARS) {
    throw new CrawlerError('BAD_INPUT', `the password has ${chars} characters, fewer than ${PASSWORD_MIN_CHARS}`, {
      fix: `choose a password of at least ${PASSWORD_MIN_CHARS} characters`,
    });
  }
  if (chars > PASSWORD_MAX_CHARS) {
    throw new CrawlerError('BAD_INPUT', `the password has ${chars} characters, more than ${PASSWORD_MAX_CHARS}`, {
      fix: `choose a password of at most ${PASSWORD_MAX_CHARS} characters`,
    });
  }
  return password;
}

/** @throws CrawlerError BAD_INPUT listing the roles */
export function checkRole(role: string): UserRole {
  if (!(USER_ROLES as readonly string[]).includes(role)) {
    throw new CrawlerError('BAD_INPUT', `unknown role "${role}"`, { fix: `use ${USER_ROLES.join(' or ')}` });
  }
  return role as UserRole;
}
