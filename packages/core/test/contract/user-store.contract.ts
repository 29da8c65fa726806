import { CrawlerError, type RecordDatabase, type UserRow, type UserStore } from '@greenfinger/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/** What the suite needs of a database: its user store and a way to close it. */
export type UserStoreHost = Pick<RecordDatabase, 'users' | 'close'>;

const FAR_FUTURE = '9999-12-31T23:59:59.999Z';

export function makeUser(name: string, overrides: Partial<UserRow> = {}): UserRow {
  return {
    name,
    passwordHash: `scrypt$16384$8$1$c2FsdHNhbHRzYWx0c2FsdA$${Buffer.from(name.padEnd(32, '.')).toString('base64url')}`,
    role: 'support',
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:00:00.000Z',
    ...overrides,
  };
}

async function errorOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** One suite for every UserStore (drizzle's shared driver suite): `open` gives a migrated database. */
export function describeUserStoreContract(name: string, open: () => Promise<UserStoreHost>): void {
  describe(`UserStore contract: ${name}`, () => {
    let host: UserStoreHost;
    let users: UserStore;
    beforeAll(async () => {
      host = await open();
      users = host.users;
    });
    afterAll(async () => {
      await host?.close();
    });
    beforeEach(async () => {
      for (const u of await users.list()) await users.delete(u.name);
      await users.purgeRevoked(FAR_FUTURE);
    });

    it('creates a user and reads it back as written (times as ISO instants)', async () => {
      const ada = makeUser('ada', { role: 'admin' });
      await users.create(ada);
      expect(await users.get('ada')).toEqual(ada);
      expect(await users.get('nobody')).toBeUndefined();
    });

    it('gives times back as ISO instants in UTC, whatever offset they were written with', async () => {
      await users.create(makeUser('tz', { createdAt: '2024-05-01T12:00:00+02:00', updatedAt: '2024-05-01T10:00:00Z' }));
      const got = await users.get('tz');
      expect(got?.createdAt).toBe('2024-05-01T10:00:00.000Z');
      expect(got?.updatedAt).toBe('2024-05-01T10:00:00.000Z');
    });

    it('refuses a name already taken with CONFLICT naming it and the fix, and keeps the first row', async () => {
      const first = makeUser('grace');
      await users.create(first);
      const err = await errorOf(users.create(makeUser('grace', { role: 'admin', passwordHash: 'other' })));
      expect(err).toBeInstanceOf(CrawlerError);
      expect((err as CrawlerError).code).toBe('CONFLICT');
      expect((err as CrawlerError).message).toBe('user "grace" already exists');
      expect((err as CrawlerError).fix).toBe(
        'choose another name, or change the password with greenfinger user passwd grace',
      );
      expect(await users.get('grace')).toEqual(first);
    });

    it('lists in name order, bytewise (capitals before small letters, as in SQLite)', async () => {
      for (const n of ['mallory', 'Zed', 'alice', 'bob', '0day', 'a.b@example.com']) await users.create(makeUser(n));
      expect((await users.list()).map((u) => u.name)).toEqual([
        '0day',
        'Zed',
        'a.b@example.com',
        'alice',
        'bob',
        'mallory',
      ]);
    });

    it('updates the whole row by name; false for a missing user, which is not created', async () => {
      await users.create(makeUser('linus'));
      const changed = makeUser('linus', {
        passwordHash: 'scrypt$16384$8$1$bmV3c2FsdA$bmV3aGFzaA',
        role: 'admin',
        updatedAt: '2024-06-01T08:30:00.000Z',
      });
      expect(await users.update(changed)).toBe(true);
      expect(await users.get('linus')).toEqual(changed);
      expect(await users.update(makeUser('ghost'))).toBe(false);
      expect(await users.get('ghost')).toBeUndefined();
    });

    it('deletes by name: true once, false after, and the others stay', async () => {
      await users.create(makeUser('a'));
      await users.create(makeUser('b'));
      expect(await users.delete('a')).toBe(true);
      expect(await users.delete('a')).toBe(false);
      expect((await users.list()).map((u) => u.name)).toEqual(['b']);
    });

    it('counts users', async () => {
      expect(await users.count()).toBe(0);
      await users.create(makeUser('one'));
      await users.create(makeUser('two'));
      expect(await users.count()).toBe(2);
      await users.delete('one');
      expect(await users.count()).toBe(1);
    });

    it('revokes a token idempotently; isRevoked says so only for that token', async () => {
      expect(await users.isRevoked('t1')).toBe(false);
      await users.revoke('t1', '2030-01-01T00:00:00.000Z');
      await users.revoke('t1', '2030-01-01T00:00:00.000Z');
      expect(await users.isRevoked('t1')).toBe(true);
      expect(await users.isRevoked('t2')).toBe(false);
    });

    it('purges only revocations that expired before now, and returns how many', async () => {
      await users.revoke('old', '2024-01-01T00:00:00.000Z');
      await users.revoke('older', '2023-01-01T00:00:00.000Z');
      await users.revoke('edge', '2024-06-01T00:00:00.000Z');
      await users.revoke('later', '2030-01-01T00:00:00.000Z');
      expect(await users.purgeRevoked('2024-06-01T00:00:00.000Z')).toBe(2);
      expect(await users.isRevoked('old')).toBe(false);
      expect(await users.isRevoked('older')).toBe(false);
      expect(await users.isRevoked('edge')).toBe(true);
      expect(await users.isRevoked('later')).toBe(true);
      expect(await users.purgeRevoked('2024-06-01T00:00:00.000Z')).toBe(0);
    });

    it('revoking again keeps the later expiry, so a retried or repeated sign-out never shortens it', async () => {
      await users.revoke('t', '2030-01-01T00:00:00.000Z');
      await users.revoke('t', '2025-01-01T00:00:00.000Z');
      expect(await users.purgeRevoked('2026-01-01T00:00:00.000Z')).toBe(0);
      expect(await users.isRevoked('t')).toBe(true);
      await users.revoke('t', '2031-01-01T00:00:00.000Z');
      expect(await users.purgeRevoked('2030-06-01T00:00:00.000Z')).toBe(0);
      expect(await users.isRevoked('t')).toBe(true);
    });

    it('refuses an expiry that is not a date-time with BAD_INPUT', async () => {
      const err = await errorOf(users.revoke('t', 'next tuesday'));
      expect((err as CrawlerError).code).toBe('BAD_INPUT');
      expect(await users.isRevoked('t')).toBe(false);
    });
  });
}
