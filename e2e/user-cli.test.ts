import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../packages/core/src/services/password-hash.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
// The driver core uses, from where core installs it (the repository root has no copy).
const Database = createRequire(join(root, 'packages/core/package.json'))('better-sqlite3') as typeof BetterSqlite3;

/** The CLI as a process; `input` is its stdin (a pipe, never a terminal). */
function cli(args: string[], input = '') {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm run build\` first`);
  const r = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, DATABASE_URL: '' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The lines a command wrote to stderr. */
const lines = (text: string) => text.split('\n').filter((l) => l.trim() !== '');

describe('greenfinger user (the CLI as a process)', () => {
  let tmp: TempDir;
  let data: string;
  const user = (args: string[], input?: string) => cli(['user', ...args, '--data', data], input);
  const storedHash = (name: string): string => {
    const db = new Database(join(data, 'system', 'greenfinger.db'), { readonly: true });
    try {
      return db.prepare('SELECT password_hash FROM gf_user WHERE name = ?').pluck().get(name) as string;
    } finally {
      db.close();
    }
  };
  /** A failure: the exit code, and exactly one line on stderr, returned. */
  const fails = (r: ReturnType<typeof cli>, code: number): string => {
    expect(r.code, r.stderr).toBe(code);
    expect(lines(r.stderr), r.stderr).toHaveLength(1);
    expect(r.stdout).toBe('');
    return r.stderr.trim();
  };

  beforeAll(() => {
    tmp = createTempDir('gf-user-cli-');
    data = join(tmp.path, 'data');
  });
  afterAll(() => tmp?.remove());

  it('adds users with --password-stdin (the first line, CR and newline stripped)', () => {
    const ada = user(['add', 'ada', '--role', 'admin', '--password-stdin'], 'correct horse battery\nignored line\n');
    expect(ada.code, ada.stderr).toBe(0);
    expect(ada.stdout).toBe('added user "ada" (admin)\n');

    const bob = user(['add', 'bob@example.com', '--password-stdin', '--json'], 'hunter22hunter\r\n');
    expect(bob.code, bob.stderr).toBe(0);
    const doc = JSON.parse(bob.stdout) as Record<string, unknown>;
    expect(Object.keys(doc).sort()).toEqual(['createdAt', 'name', 'role', 'updatedAt']);
    expect(doc).toMatchObject({ name: 'bob@example.com', role: 'support' });
    expect(doc.createdAt).toBe(doc.updatedAt);
  });

  it('stores a scrypt string in SQLite, not the password', async () => {
    const hash = storedHash('bob@example.com');
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(hash).not.toContain('hunter22hunter');
    expect(await verifyPassword('hunter22hunter', hash)).toBe(true);
    expect(await verifyPassword('hunter22hunter\r', hash)).toBe(false);
    expect(await verifyPassword('correct horse battery', storedHash('ada'))).toBe(true);
  });

  it('lists users as a table and as JSON, in name order, never with a hash', () => {
    const text = user(['list']);
    expect(text.code, text.stderr).toBe(0);
    const rows = lines(text.stdout);
    expect(rows[0]).toMatch(/^name\s+role\s+created\s+updated$/);
    expect(rows.slice(1).map((r) => r.split(/\s+/).slice(0, 2))).toEqual([
      ['ada', 'admin'],
      ['bob@example.com', 'support'],
    ]);
    expect(text.stdout).not.toContain('scrypt');

    const json = user(['list', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const list = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(list.map((u) => [u.name, u.role])).toEqual([
      ['ada', 'admin'],
      ['bob@example.com', 'support'],
    ]);
    for (const u of list) expect(Object.keys(u).sort()).toEqual(['createdAt', 'name', 'role', 'updatedAt']);
    expect(json.stdout).not.toContain('scrypt');
  });

  it('refuses a name already taken: exit 1, one line naming it and the fix, the first password kept', () => {
    const before = storedHash('ada');
    const line = fails(user(['add', 'ada', '--password-stdin'], 'another-password\n'), 1);
    expect(line).toBe(
      'greenfinger: user "ada" already exists — choose another name, or change the password with greenfinger user passwd ada',
    );
    expect(storedHash('ada')).toBe(before);
  });

  it('changes a password with passwd: the new one verifies, the old one no longer', async () => {
    const before = storedHash('bob@example.com');
    const r = user(['passwd', 'bob@example.com', '--password-stdin'], 'a-much-better-one\n');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('changed the password of "bob@example.com"\n');
    const after = storedHash('bob@example.com');
    expect(after).not.toBe(before);
    expect(await verifyPassword('a-much-better-one', after)).toBe(true);
    expect(await verifyPassword('hunter22hunter', after)).toBe(false);
    const missing = fails(user(['passwd', 'nobody', '--password-stdin'], 'whatever-password\n'), 2);
    expect(missing).toBe('greenfinger: no user "nobody" — list them with greenfinger user list');
  });

  it('changes roles, and keeps an admin while other users exist', () => {
    const promoted = user(['role', 'bob@example.com', 'admin', '--json']);
    expect(promoted.code, promoted.stderr).toBe(0);
    expect(JSON.parse(promoted.stdout)).toMatchObject({ name: 'bob@example.com', role: 'admin' });

    const demoted = user(['role', 'ada', 'support']);
    expect(demoted.code, demoted.stderr).toBe(0);
    expect(demoted.stdout).toBe('"ada" is now support\n');

    const last = fails(user(['role', 'bob@example.com', 'support']), 1);
    expect(last).toMatch(/^greenfinger: cannot demote "bob@example.com": the last admin.* — add another admin first/);
    const lastDelete = fails(user(['delete', 'bob@example.com']), 1);
    expect(lastDelete).toMatch(/^greenfinger: cannot delete "bob@example.com": the last admin.* — add another admin/);

    expect(fails(user(['role', 'ada', 'root']), 2)).toBe('greenfinger: unknown role "root" — use admin or support');
  });

  it('deletes a user; deleting again says there is no such user (exit 2)', () => {
    expect(user(['role', 'ada', 'admin']).code).toBe(0);
    const r = user(['delete', 'bob@example.com']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('deleted user "bob@example.com"\n');
    expect(fails(user(['delete', 'bob@example.com']), 2)).toBe(
      'greenfinger: no user "bob@example.com" — list them with greenfinger user list',
    );
    const json = user(['delete', 'ada', '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ deleted: 'ada' });
    expect(user(['list']).stdout).toBe('no users yet — add one with: greenfinger user add NAME --role admin\n');
  });

  it('refuses a bad name, a short password and a bad role in one line each, exit 2, storing nothing', () => {
    expect(fails(user(['add', 'bad/name', '--password-stdin'], 'long-enough-password\n'), 2)).toMatch(
      /^greenfinger: user name "bad\/name" is not allowed — use 1 to 64 letters, digits and \. _ @ -/,
    );
    expect(fails(user(['add', 'carol', '--password-stdin'], 'short\n'), 2)).toBe(
      'greenfinger: the password has 5 characters, fewer than 8 — choose a password of at least 8 characters',
    );
    expect(fails(user(['add', 'carol', '--role', 'root', '--password-stdin'], 'long-enough-password\n'), 2)).toBe(
      'greenfinger: unknown role "root" — use admin or support',
    );
    expect(fails(user(['add', 'carol', '--password-stdin']), 2)).toMatch(
      /^greenfinger: --password-stdin: stdin is empty — pipe the password in/,
    );
    expect(JSON.parse(user(['list', '--json']).stdout)).toEqual([]);
  });

  it('without --password-stdin and stdin not a terminal, says to pass --password-stdin (exit 2)', () => {
    const line = fails(user(['add', 'carol']), 2);
    expect(line).toMatch(/^greenfinger: no password: stdin is not a terminal.* — pass --password-stdin/);
    expect(fails(user(['passwd', 'carol']), 2)).toBe(
      'greenfinger: no user "carol" — list them with greenfinger user list',
    );
  });

  it('shows examples in help', () => {
    const r = cli(['help', 'user']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('greenfinger user add ada --role admin');
    expect(r.stdout).toContain('--password-stdin');
  });
});
