import { buildApp, LoginLimiter } from '@greenfinger/api';
import { Greenfinger } from '@greenfinger/core';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { createTempDir, type TempDir } from '../../../core/test/support/tmp.js';

export const ADMIN = { username: 'ada', password: 'correct horse battery' };
export const SUPPORT = { username: 'sam', password: 'support staple 42' };

/** A Greenfinger on a temp data root with an admin and a support user, and the REST app over it (no listening). */
export interface ApiFixture {
  tmp: TempDir;
  gf: Greenfinger;
  app: FastifyInstance;
  /** Tokens of the two users. */
  admin: string;
  support: string;
  /** inject() with the token of `as` (none = no Authorization header). */
  call(options: InjectOptions & { as?: 'admin' | 'support' | string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function openApiFixture(
  options: { settings?: Record<string, unknown>; now?: () => number; limiter?: LoginLimiter; users?: boolean } = {},
): Promise<ApiFixture> {
  const tmp = createTempDir('gf-api-');
  const gf = await Greenfinger.open({ settings: { dataStore: tmp.path, workers: 0, ...options.settings } });
  if (options.users !== false) {
    await gf.users.add(ADMIN.username, ADMIN.password, 'admin');
    await gf.users.add(SUPPORT.username, SUPPORT.password, 'support');
  }
  const app = await buildApp(gf, {
    ...(options.now ? { now: options.now } : {}),
    limiter: options.limiter ?? new LoginLimiter({ perUser: 1000, perAddress: 1000 }, options.now),
  });
  const login = async (u: { username: string; password: string }) => {
    const r = await app.inject({ method: 'POST', url: '/v2/login', payload: u });
    return r.statusCode === 200 ? (r.json().data.token as string) : '';
  };
  const fixture: ApiFixture = {
    tmp,
    gf,
    app,
    admin: options.users === false ? '' : await login(ADMIN),
    support: options.users === false ? '' : await login(SUPPORT),
    call: ({ as, ...o }) => {
      const token = as === 'admin' ? fixture.admin : as === 'support' ? fixture.support : as;
      return app.inject({
        ...o,
        headers: { ...(o.headers ?? {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      });
    },
    close: async () => {
      await app.close();
      await gf.close();
      tmp.remove();
    },
  };
  return fixture;
}
