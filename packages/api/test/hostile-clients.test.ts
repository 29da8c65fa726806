import { LoginLimiter } from '@greenfinger/api';
import { scryptQueue } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, type ApiFixture, openApiFixture, SUPPORT } from './support/api-fixture.js';

const WRONG = { ...ADMIN, password: 'wrong wrong wrong' };
const login = (f: ApiFixture, payload: object, remoteAddress = '127.0.0.1') =>
  f.app.inject({ method: 'POST', url: '/v2/login', payload, remoteAddress });

describe('sign-in under hostile clients', () => {
  it('sign-in limit holds under 40 concurrent wrong passwords', async () => {
    const f = await openApiFixture({ limiter: new LoginLimiter() });
    try {
      const answers = await Promise.all(Array.from({ length: 40 }, () => login(f, WRONG)));
      const statuses = answers.map((r) => r.statusCode);
      // The default limit is 5 per user at an address: no more than 5 passwords were checked.
      expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(35);
      expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    } finally {
      await f.close();
    }
  });

  it('five wrong passwords from one address do not lock the user out from another address', async () => {
    const f = await openApiFixture({ limiter: new LoginLimiter() });
    try {
      for (let i = 0; i < 5; i++) expect((await login(f, WRONG, '10.0.0.66')).statusCode).toBe(401);
      expect((await login(f, ADMIN, '10.0.0.66')).statusCode).toBe(429);
      expect((await login(f, ADMIN, '10.0.0.7')).statusCode).toBe(200);
    } finally {
      await f.close();
    }
  });

  it('a right password is refunded: it does not count towards the limit', async () => {
    const f = await openApiFixture({ limiter: new LoginLimiter({ perUser: 2, perAddress: 3 }) });
    try {
      for (let i = 0; i < 6; i++) expect((await login(f, SUPPORT)).statusCode).toBe(200);
    } finally {
      await f.close();
    }
  });

  it('a sign-in flood runs one scrypt at a time and refuses password checks beyond 8 in flight', async () => {
    const f = await openApiFixture();
    try {
      let most = 0;
      let sampling = true;
      const sample = (async () => {
        while (sampling) {
          most = Math.max(most, scryptQueue().running);
          await new Promise((r) => setImmediate(r));
        }
      })();
      const answers = await Promise.all(Array.from({ length: 30 }, () => login(f, WRONG)));
      sampling = false;
      await sample;
      const busy = answers.filter((r) => r.statusCode === 429);
      expect(busy.length).toBeGreaterThanOrEqual(30 - 8);
      expect(busy[0]?.json().message).toMatch(/at once/);
      expect(busy[0]?.headers['retry-after']).toBe('1');
      expect(answers.filter((r) => r.statusCode === 401).length).toBeGreaterThan(0);
      expect(most).toBe(1);
    } finally {
      await f.close();
    }
  });
});

describe('bad input is never a 5xx', () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await openApiFixture();
    await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'bad', url: 'http://127.0.0.1:9/' },
    });
  });
  afterAll(async () => f?.close());

  it('offset=1e309 and offset=Infinity are 400 naming the field, with no file path', async () => {
    for (const url of [
      '/v2/urls?offset=1e309',
      '/v2/urls?catalog=bad&offset=Infinity',
      '/v2/resource?catalog=bad&offset=1e309',
      '/v2/resource?catalog=bad&limit=-Infinity',
      '/v2/search?q=x&size=1e309',
    ]) {
      const r = await f.call({ method: 'GET', url, as: 'admin' });
      expect(r.statusCode, `${url}: ${r.body}`).toBe(400);
      expect(r.json().message, url).toMatch(/querystring\.(offset|limit|size) must be a finite number/);
      expect(r.body).not.toContain(f.tmp.path);
    }
  });

  it('a wrong JSON type ({"name":123}) is 400 naming the field, and creates nothing', async () => {
    const r = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 123, url: 'http://127.0.0.1:9/typed/' },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(/body\.name must be string/);
    expect((await f.call({ method: 'GET', url: '/v2/catalog/123', as: 'admin' })).statusCode).toBe(404);
    for (const [url, payload, field] of [
      ['/v2/limits', { catalog: 'bad', depthLimit: '3' }, 'body.depthLimit'],
      ['/v2/seed/urls', { catalog: 'bad', urls: 'http://127.0.0.1:9/a' }, 'body.urls'],
      ['/v2/catalog', { name: 'bad', settings: { depth: true } }, 'body.settings.depth'],
      ['/v2/limits', '{"catalog":"bad","depthLimit":1e309}', 'body.depthLimit'],
    ] as const) {
      const res = await f.call({
        method: 'POST',
        url,
        as: 'admin',
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, `${url} ${JSON.stringify(payload)}: ${res.body}`).toBe(400);
      expect(res.json().message).toContain(field);
    }
  });

  it('startUrl in a crawl body is refused with 400, not ignored', async () => {
    const r = await f.call({
      method: 'POST',
      url: '/v2/crawl/bad',
      as: 'admin',
      payload: { startUrl: 'http://127.0.0.1:9/elsewhere/' },
    });
    expect(r.statusCode).toBe(400);
    expect(r.json().message).toMatch(/startUrl/);
    expect(f.gf.jobs.list()).toHaveLength(0);
  });
});

describe('secrets and sessions', () => {
  let f: ApiFixture;
  beforeAll(async () => {
    f = await openApiFixture({
      settings: { redisUrl: 'redis://u:pa@ss-S3cret@127.0.0.1:6379/0?password=hunter2&db=0' },
    });
  });
  afterAll(async () => f?.close());

  it('GET /v2/settings masks a url password holding @, and ?password= values', async () => {
    for (const as of ['admin', 'support'] as const) {
      const r = await f.call({ method: 'GET', url: '/v2/settings', as });
      expect(r.statusCode).toBe(200);
      expect(r.body).not.toMatch(/S3cret|ss-|hunter2/);
      expect(r.json().data.redisUrl).toMatch(/^redis:\/\/u:\*\*\*@127\.0\.0\.1:6379\/0\?password=\*\*\*&db=0$/);
    }
  });

  it('catalog urls with user:pass@ are masked for the support role', async () => {
    const created = await f.call({
      method: 'POST',
      url: '/v2/catalog',
      as: 'admin',
      payload: { name: 'private', url: 'http://bob:t0p-s3cr3t@127.0.0.1:9/' },
    });
    expect(created.statusCode).toBe(201);
    for (const url of ['/v2/catalog', '/v2/catalog/private', '/v2/catalog/private/details']) {
      const support = await f.call({ method: 'GET', url, as: 'support' });
      expect(support.statusCode).toBe(200);
      expect(support.body, url).not.toContain('t0p-s3cr3t');
      expect(support.body, url).toContain('bob:***@127.0.0.1');
    }
    // The admin edits the catalog, so it reads the url as stored.
    expect((await f.call({ method: 'GET', url: '/v2/catalog/private', as: 'admin' })).body).toContain('t0p-s3cr3t');
  });

  it('/v2 JSON answers carry Cache-Control: no-store', async () => {
    for (const [url, as] of [
      ['/v2/me', 'support'],
      ['/v2/catalog', 'admin'],
      ['/v2/version', undefined],
      ['/v2/no-such-endpoint', 'admin'],
      ['/v2/urls?offset=1e309', 'admin'],
    ] as const) {
      const r = await f.call({ method: 'GET', url, ...(as ? { as } : {}) });
      expect(r.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('a password change ends the tokens signed before it', async () => {
    const before = await login(f, SUPPORT);
    const token = before.json().data.token as string;
    expect((await f.call({ method: 'GET', url: '/v2/me', as: token })).statusCode).toBe(200);
    await f.gf.users.passwd(SUPPORT.username, 'a brand new password 7');
    const after = await f.call({ method: 'GET', url: '/v2/me', as: token });
    expect(after.statusCode).toBe(401);
    expect(after.json().message).toMatch(/password was changed/);
    const again = await login(f, { username: SUPPORT.username, password: 'a brand new password 7' });
    expect(again.statusCode).toBe(200);
    expect((await f.call({ method: 'GET', url: '/v2/me', as: again.json().data.token })).statusCode).toBe(200);
  });
});
