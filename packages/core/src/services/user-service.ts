import { createHash, randomBytes } from 'node:crypto';
import type { ComponentFactory } from '../compose/component-factory.js';
import { CrawlerError } from '../errors.js';
import { toIsoInstant } from '../storage/record-columns.js';
import type { UserRole, UserRow, UserStore } from '../storage/record-store.js';
import { hashPassword, verifyPassword } from './password-hash.js';
import { checkPassword, checkRole, checkUserName } from './user-input.js';

export { scryptQueue } from './password-hash.js';
export * from './user-input.js';

/** A user as anyone may see it: never the password hash. */
export interface PublicUser {
  name: string;
  role: UserRole;
  createdAt: string;
  updatedAt: string;
}

function publicOf(row: UserRow): PublicUser {
  return { name: row.name, role: row.role, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

function passwordStamp(hash: string): string {
  return createHash('sha256').update(hash).digest('base64url').slice(0, 16);
}

function noSuchUser(name: string): CrawlerError {
  return new CrawlerError('NOT_FOUND', `no user "${name}"`, { fix: 'list them with greenfinger user list' });
}

/**
 * The people who may sign in to the REST API, and the tokens signed out. Reads go to this node's store; every write
 * goes through the administrative writer. Passwords are kept only as scrypt hashes (password-hash.ts).
 */
export class UserService {
  readonly #f: ComponentFactory;
  /** Verified against when the user is missing, so an unknown name costs the same time as a wrong password. */
  #dummy: Promise<string> | undefined;

  constructor(factory: ComponentFactory) {
    this.#f = factory;
  }

  async #store(): Promise<UserStore> {
    return (await this.#f.database()).users;
  }

  async #get(name: string): Promise<UserRow> {
    const found = await (await this.#store()).get(name);
    if (!found) throw noSuchUser(name);
    return found;
  }

  /**
   * @throws CrawlerError BAD_INPUT for a name, password or role outside the rules (user-input.ts);
   * CONFLICT when the name is taken
   */
  async add(name: string, password: string, role: UserRole = 'support'): Promise<PublicUser> {
    checkUserName(name);
    checkPassword(password);
    checkRole(role);
    const now = new Date().toISOString();
    const row: UserRow = { name, passwordHash: await hashPassword(password), role, createdAt: now, updatedAt: now };
    await this.#f.writer.createUser(row);
    return publicOf(row);
  }

  /** A new password. @throws CrawlerError BAD_INPUT for a password outside the rules; NOT_FOUND */
  async passwd(name: string, password: string): Promise<PublicUser> {
    checkPassword(password);
    const user = await this.#get(name);
    return this.#save({ ...user, passwordHash: await hashPassword(password) });
  }

  /** @throws CrawlerError BAD_INPUT; NOT_FOUND; CONFLICT when it would demote the last admin while others exist */
  async setRole(name: string, role: UserRole): Promise<PublicUser> {
    checkRole(role);
    const user = await this.#get(name);
    if (user.role === role) return publicOf(user);
    if (user.role === 'admin') await this.#keepAnAdmin(user, 'demote');
    return this.#save({ ...user, role });
  }

  /** false when there is no such user. @throws CrawlerError CONFLICT for the last admin while others exist */
  async delete(name: string): Promise<boolean> {
    const user = await (await this.#store()).get(name);
    if (!user) return false;
    if (user.role === 'admin') await this.#keepAnAdmin(user, 'delete');
    return this.#f.writer.deleteUser(name);
  }

  async get(name: string): Promise<PublicUser | undefined> {
    const user = await (await this.#store()).get(name);
    return user && publicOf(user);
  }

  /** In name order. */
  async list(): Promise<PublicUser[]> {
    return (await (await this.#store()).list()).map(publicOf);
  }

  async count(): Promise<number> {
    return (await this.#store()).count();
  }

  /**
   * The user when `password` is theirs, else undefined. A missing user is checked against a dummy hash, so the
   * answer takes the same time whether the name exists or not.
   */
  async verify(name: string, password: string): Promise<PublicUser | undefined> {
    const user = await (await this.#store()).get(name);
    if (!user) {
      this.#dummy ??= hashPassword(randomBytes(16).toString('base64url'));
      await verifyPassword(password, await this.#dummy);
      return undefined;
    }
    return (await verifyPassword(password, user.passwordHash)) ? publicOf(user) : undefined;
  }

  /**
   * The user and the stamp of their password: a short digest of its hash (salted, so a new password, even the same
   * one, gives a new stamp). A sign-in token carries it, so changing a password ends every token signed before.
   */
  async credentials(name: string): Promise<{ user: PublicUser; stamp: string } | undefined> {
    const user = await (await this.#store()).get(name);
    return user && { user: publicOf(user), stamp: passwordStamp(user.passwordHash) };
  }

  /** Sign a token out until it would have expired (`expiresAtIso`); idempotent. @throws CrawlerError BAD_INPUT */
  async revoke(tokenId: string, expiresAtIso: string): Promise<void> {
    await this.#f.writer.revokeToken(tokenId, toIsoInstant(expiresAtIso, 'expiresAt'));
  }

  async isRevoked(tokenId: string): Promise<boolean> {
    return (await this.#store()).isRevoked(tokenId);
  }

  /**
   * Forget the revocations whose tokens have expired by now; returns how many. Housekeeping of this node's own
   * copy, so it does not go through the writer.
   */
  async purgeRevoked(): Promise<number> {
    return (await this.#store()).purgeRevoked(new Date().toISOString());
  }

  async #save(user: UserRow): Promise<PublicUser> {
    const saved = { ...user, updatedAt: new Date().toISOString() };
    if (!(await this.#f.writer.updateUser(saved))) throw noSuchUser(user.name);
    return publicOf(saved);
  }

  /** Refuse to leave users without an admin: the last admin goes only when nobody else is left. */
  async #keepAnAdmin(admin: UserRow, action: 'delete' | 'demote'): Promise<void> {
    const users = await (await this.#store()).list();
    const otherAdmins = users.filter((u) => u.role === 'admin' && u.name !== admin.name);
    const others = users.filter((u) => u.name !== admin.name);
    if (otherAdmins.length === 0 && others.length > 0) {
      const remain = others.length === 1 ? '1 other user remains' : `${others.length} other users remain`;
      throw new CrawlerError('CONFLICT', `cannot ${action} "${admin.name}": the last admin, while ${remain}`, {
        fix: 'add another admin first: greenfinger user role NAME admin, or greenfinger user add NAME --role admin',
      });
    }
  }
}
