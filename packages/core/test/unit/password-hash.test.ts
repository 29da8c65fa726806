import { describe, expect, it } from 'vitest';
import { hashPassword, isPasswordHash, verifyPassword } from '../../src/services/password-hash.js';

describe('password hashes (scrypt)', () => {
  it('stores scrypt$16384$8$1$<16-byte salt>$<32-byte key> in base64url, never the password', async () => {
    const stored = await hashPassword('correct horse battery');
    const [kind, N, r, p, salt, key, ...rest] = stored.split('$');
    expect([kind, N, r, p, rest]).toEqual(['scrypt', '16384', '8', '1', []]);
    expect(Buffer.from(salt as string, 'base64url')).toHaveLength(16);
    expect(Buffer.from(key as string, 'base64url')).toHaveLength(32);
    expect(salt).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(key).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(stored).not.toContain('correct horse');
    expect(isPasswordHash(stored)).toBe(true);
  });

  it('salts every hash: the same password twice gives two different strings, both verifying', async () => {
    const a = await hashPassword('same password');
    const b = await hashPassword('same password');
    expect(a).not.toBe(b);
    expect(await verifyPassword('same password', a)).toBe(true);
    expect(await verifyPassword('same password', b)).toBe(true);
  });

  it('refuses a wrong password, one character off included', async () => {
    const stored = await hashPassword('s3cret-passw0rd');
    expect(await verifyPassword('s3cret-passw0rD', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('reads the parameters from the stored string (a hash made with other N, r, p still verifies)', async () => {
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync('older-password', salt, 24, { N: 1024, r: 4, p: 2 });
    const stored = `scrypt$1024$4$2$${salt.toString('base64url')}$${key.toString('base64url')}`;
    expect(await verifyPassword('older-password', stored)).toBe(true);
    expect(await verifyPassword('older-passwore', stored)).toBe(false);
  });

  it('never matches a stored value that is not a sane scrypt string', async () => {
    const good = (await hashPassword('whatever-it-is')).split('$');
    const variants = [
      'whatever-it-is',
      '',
      `bcrypt$${good.slice(1).join('$')}`,
      ['scrypt', '1000', ...good.slice(2)].join('$'),
      ['scrypt', String(2 ** 24), ...good.slice(2)].join('$'),
      ['scrypt', '16384', '0', ...good.slice(3)].join('$'),
      [...good.slice(0, 5), ''].join('$'),
      `${good.join('$')}$extra`,
    ];
    for (const stored of variants) {
      expect(await verifyPassword('whatever-it-is', stored), stored).toBe(false);
      expect(isPasswordHash(stored), stored).toBe(false);
    }
  });

  it('treats the composed and decomposed forms of an accented password as the same (NFC)', async () => {
    const stored = await hashPassword('caf\u00e9-au-lait');
    expect(await verifyPassword('cafe\u0301-au-lait', stored)).toBe(true);
  });
});
