import { CrawlerError, Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../support/tmp.js';

async function errorOf(promise: Promise<unknown>): Promise<CrawlerError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CrawlerError);
  return err as CrawlerError;
}

describe('UserService (on SQLite, through the admin writer)', () => {
  let tmp: TempDir;
  let gf: Greenfinger;
  beforeAll(async () => {
    tmp = createTempDir('gf-user-service-');
    gf = await Greenfinger.open({ settings: { dataStore: tmp.path, databaseUrl: '' } });
  });
  afterAll(async () => {
    await gf?.close();
    tmp?.remove();
  });
  beforeEach(async () => {
    for (const u of await gf.users.list()) await (await gf.database()).users.delete(u.name);
  });

  it('adds a support user by default and never gives the hash back', async () => {
    const added = await gf.users.add('ada', 'correct horse');
    expect(Object.keys(added).sort()).toEqual(['createdAt', 'name', 'role', 'updatedAt']);
    expect(added.role).toBe('support');
    expect(await gf.users.list()).toEqual([added]);
    expect(await gf.users.get('ada')).toEqual(added);
    expect(await gf.users.count()).toBe(1);
    const row = await (await gf.database()).users.get('ada');
    expect(row?.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$/);
  });

  it('verifies the right password only; an unknown name gives undefined as well', async () => {
    const added = await gf.users.add('ada', 'correct horse', 'admin');
    expect(await gf.users.verify('ada', 'correct horse')).toEqual(added);
    expect(await gf.users.verify('ada', 'correct horsE')).toBeUndefined();
    expect(await gf.users.verify('nobody', 'correct horse')).toBeUndefined();
  });

  it('checks names, passwords and roles in one line each (BAD_INPUT with a fix)', async () => {
    for (const [promise, message] of [
      [gf.users.add('-ada', 'correct horse'), 'user name "-ada" is not allowed'],
      [gf.users.add('a'.repeat(65), 'correct horse'), `user name "${'a'.repeat(65)}" is not allowed`],
      [gf.users.add('ada', 'seven77'), 'the password has 7 characters, fewer than 8'],
      [gf.users.add('ada', 'x'.repeat(1025)), 'the password has 1025 characters, more than 1024'],
      [gf.users.add('ada', 'correct horse', 'root' as never), 'unknown role "root"'],
    ] as const) {
      const err = await errorOf(promise);
      expect(err.code).toBe('BAD_INPUT');
      expect(err.message).toBe(message);
      expect(err.fix).toBeTruthy();
      expect(err.toLine()).not.toContain('\n');
    }
    expect(await gf.users.add('a'.repeat(64), 'x'.repeat(1024))).toMatchObject({ role: 'support' });
    expect(await gf.users.add('a.b_c-d@example.com', '🔑🔑🔑🔑🔑🔑🔑🔑')).toMatchObject({ role: 'support' });
    expect(await gf.users.count()).toBe(2);
  });

  it('refuses a taken name with CONFLICT and keeps the first password', async () => {
    await gf.users.add('ada', 'correct horse');
    const err = await errorOf(gf.users.add('ada', 'another one'));
    expect(err.toLine()).toBe(
      'user "ada" already exists — choose another name, or change the password with greenfinger user passwd ada',
    );
    expect(await gf.users.verify('ada', 'correct horse')).toBeDefined();
  });

  it('changes a password and a role, moving updatedAt; unknown users are NOT_FOUND', async () => {
    const added = await gf.users.add('ada', 'correct horse');
    // The clock past the add's time (the event updatedAt must move after), not a guessed wait.
    for (const until = Date.now() + 5000; new Date().toISOString() <= added.updatedAt && Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 1));
    }
    const changed = await gf.users.passwd('ada', 'battery staple');
    expect(changed.createdAt).toBe(added.createdAt);
    expect(changed.updatedAt > added.updatedAt).toBe(true);
    expect(await gf.users.verify('ada', 'correct horse')).toBeUndefined();
    expect(await gf.users.verify('ada', 'battery staple')).toBeDefined();
    expect((await gf.users.setRole('ada', 'admin')).role).toBe('admin');
    expect((await errorOf(gf.users.passwd('nobody', 'battery staple'))).code).toBe('NOT_FOUND');
    expect((await errorOf(gf.users.setRole('nobody', 'admin'))).code).toBe('NOT_FOUND');
    expect((await errorOf(gf.users.passwd('ada', 'short'))).code).toBe('BAD_INPUT');
  });

  it('keeps an admin while other users exist: the last one is neither demoted nor deleted', async () => {
    await gf.users.add('root', 'correct horse', 'admin');
    await gf.users.add('help', 'correct horse', 'support');
    const demote = await errorOf(gf.users.setRole('root', 'support'));
    expect(demote.code).toBe('CONFLICT');
    expect(demote.fix).toContain('add another admin first');
    expect((await errorOf(gf.users.delete('root'))).code).toBe('CONFLICT');
    await gf.users.setRole('help', 'admin');
    expect((await gf.users.setRole('root', 'support')).role).toBe('support');
    expect(await gf.users.delete('root')).toBe(true);
    expect(await gf.users.delete('root')).toBe(false);
    // Alone, the last admin may go: nobody is left without one.
    expect(await gf.users.delete('help')).toBe(true);
    expect(await gf.users.count()).toBe(0);
  });

  it('revokes tokens until they expire, and purges the expired ones', async () => {
    await gf.users.revoke('gone', new Date(Date.now() - 1000).toISOString());
    await gf.users.revoke('kept', new Date(Date.now() + 3_600_000).toISOString());
    await gf.users.revoke('kept', new Date(Date.now() + 3_600_000).toISOString());
    expect(await gf.users.isRevoked('gone')).toBe(true);
    expect(await gf.users.isRevoked('kept')).toBe(true);
    expect(await gf.users.purgeRevoked()).toBe(1);
    expect(await gf.users.isRevoked('gone')).toBe(false);
    expect(await gf.users.isRevoked('kept')).toBe(true);
    expect((await errorOf(gf.users.revoke('x', 'soon'))).code).toBe('BAD_INPUT');
  });

  it('a retried createUser of the very same row is harmless', async () => {
    const row = {
      name: 'twice',
      passwordHash: 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      role: 'support' as const,
      createdAt: '2024-05-01T10:00:00.000Z',
      updatedAt: '2024-05-01T10:00:00.000Z',
    };
    await gf.writer.createUser(row);
    await gf.writer.createUser(row);
    expect((await errorOf(gf.writer.createUser({ ...row, role: 'admin' }))).code).toBe('CONFLICT');
  });
});
