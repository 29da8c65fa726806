import { LoginLimiter } from '@greenfinger/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type ApiFixture, openApiFixture, SUPPORT } from './support/api-fixture.js';

describe('sign-in, tokens and roles', () => {
  let clock = Date.now();
  let f: ApiFixture;
  beforeAll(async () => {
    f = await openApiFixture({ now: () => clock, settings: { tokenTtl: '1h' } });
  });
  afterAll(async () => f?.close());

  it('answers a token with the user, the role and its lifetime', async () => {
    const r = await f.call({ method: 'POST', url: '/v2/login', payload: ADMIN });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toMatchObject({
      success: true,
      data: { username: ADMIN.username, roles: ['ADMIN'], expiresInSeconds: 3600, token: expect.any(String) },
    });
  });

  it('says who is signed in', async () => {
    const r = await f.call({ method: 'GET', url: '/v2/me', as: 'support' });
    expect(r.json().data).toMatchObject({ username: SUPPORT.username, roles: ['SUPPORT'] });
  });

  it('refuses a wrong password and an unknown user with the same words', async () => {
    const wrong = await f.call({ method: 'POST', url: '/v2/login', payload: { ...ADMIN, password: 'nope nope nope' } });
    const nobody = await f.call({ method: 'POST', url: '/v2/login', payload: { username: 'nobody', password: 'x' } });
    expect(wrong.statusCode).toBe(401);
    expect(nobody.statusCode).toBe(401);
    expect(wrong.json().message).toBe(nobody.json().message);
  });

  it('refuses a missing, a forged and a tampered token with 401', async () => {
    expect((await f.call({ method: 'GET', url: '/v2/me' })).statusCode).toBe(401);
    expect((await f.call({ method: 'GET', url: '/v2/me', as: 'garbage' })).statusCode).toBe(401);
    const [body, mac] = f.support.split('.');
    const claims = JSON.parse(Buffer.from(body as string, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, role: 'admin' })).toString('base64url')}.${mac}`;
    const r = await f.call({ method: 'POST', url: '/v2/catalog', as: forged, payload: { url: 'http://127.0.0.1:9/' } });
    expect(r.statusCode).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer');
  });

  it('a token expires after GF_TOKEN_TTL', async () => {
    const r = await f.call({ method: 'POST', url: '/v2/login', payload: SUPPORT });
    const token = r.json().data.token as string;
    expect((await f.call({ method: 'GET', url: '/v2/me', as: token })).statusCode).toBe(200);
    clock += 3601_000;
    const late = await f.call({ method: 'GET', url: '/v2/me', as: token });
    clock -= 3601_000;
    expect(late.statusCode).toBe(401);
    expect(late.json().message).toMatch(/expired/);
  });

  it('sign-out revokes the token and only that token', async () => {
    const one = (await f.call({ method: 'POST', url: '/v2/login', payload: SUPPORT })).json().data.token as string;
    const two = (await f.call({ method: 'POST', url: '/v2/login', payload: SUPPORT })).json().data.token as string;
    expect((await f.call({ method: 'POST', url: '/v2/logout', as: one })).statusCode).toBe(200);
    const after = await f.call({ method: 'GET', url: '/v2/me', as: one });
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toMatch(/signed out/);
    expect((await f.call({ method: 'GET', url: '/v2/me', as: two })).statusCode).toBe(200);
  });

  it('a deleted user is signed out at once', async () => {
    await f.gf.users.add('temp-user', 'temporary password', 'support');
    const t = (
      await f.call({
        method: 'POST',
        url: '/v2/login',
        payload: { username: 'temp-user', password: 'temporary password' },
      })
    ).json().data.token;
    await f.gf.users.delete('temp-user');
    expect((await f.call({ method: 'GET', url: '/v2/me', as: t })).statusCode).toBe(401);
  });

  it('sends security headers, and no CORS unless GF_CORS_ORIGINS names the origin', async () => {
    const r = await f.call({ method: 'GET', url: '/v2/version', headers: { origin: 'http://evil.example' } });
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    expect(r.headers['content-security-policy']).toContain("default-src 'self'");
    expect(r.headers['x-frame-options']).toBeDefined();
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('the sign-in rate limit', () => {
  it('answers 429 with Retry-After per user, then per address, and a right password is refused meanwhile', async () => {
    let clock = Date.now();
    const f = await openApiFixture({
      now: () => clock,
      limiter: new LoginLimiter({ perUser: 3, perAddress: 5, windowMs: 60_000 }, () => clock),
    });
    try {
      const bad = { ...ADMIN, password: 'wrong wrong wrong' };
      for (let i = 0; i < 3; i++)
        expect((await f.call({ method: 'POST', url: '/v2/login', payload: bad })).statusCode).toBe(401);
      const limited = await f.call({ method: 'POST', url: '/v2/login', payload: ADMIN });
      expect(limited.statusCode).toBe(429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
      // Another user from the same address: two more failures reach the address limit.
      const other = { username: SUPPORT.username, password: 'wrong wrong wrong' };
      for (let i = 0; i < 2; i++) await f.call({ method: 'POST', url: '/v2/login', payload: other });
      expect((await f.call({ method: 'POST', url: '/v2/login', payload: SUPPORT })).statusCode).toBe(429);
      clock += 61_000;
      expect((await f.call({ method: 'POST', url: '/v2/login', payload: ADMIN })).statusCode).toBe(200);
    } finally {
      await f.close();
    }
  });
});

describe('a server with no users', () => {
  it('says how to add one, in every 401', async () => {
    const f = await openApiFixture({ users: false });
    try {
      const login = await f.call({
        method: 'POST',
        url: '/v2/login',
        payload: { username: 'admin', password: 'admin123' },
      });
      expect(login.statusCode).toBe(401);
      expect(login.json().message).toMatch(/greenfinger user add NAME --role admin --password-stdin/);
      const read = await f.call({ method: 'GET', url: '/v2/catalog' });
      expect(read.statusCode).toBe(401);
      expect(read.json().message).toMatch(/greenfinger user add/);
    } finally {
      await f.close();
    }
  });
});

describe('CORS when GF_CORS_ORIGINS is set', () => {
  it('allows the named origin only', async () => {
    const f = await openApiFixture({ settings: { corsOrigins: 'http://app.example' } });
    try {
      const ok = await f.call({
        method: 'OPTIONS',
        url: '/v2/version',
        headers: { origin: 'http://app.example', 'access-control-request-method': 'GET' },
      });
      expect(ok.headers['access-control-allow-origin']).toBe('http://app.example');
      const other = await f.call({ method: 'GET', url: '/v2/version', headers: { origin: 'http://evil.example' } });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await f.close();
    }
  });
});
