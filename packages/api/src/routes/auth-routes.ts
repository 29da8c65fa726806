import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { ok } from '../envelope.js';

/** Sign in, sign out, who am I. */
export function authRoutes(app: FastifyInstance, ctx: ApiContext): void {
  app.post<{ Body: { username: string; password: string } }>(
    '/v2/login',
    {
      config: { access: 'open' },
      schema: {
        summary: 'Sign in: answers a token to send as Authorization: Bearer <token>',
        tags: ['auth'],
        body: {
          type: 'object',
          required: ['username', 'password'],
          additionalProperties: false,
          properties: {
            username: { type: 'string', minLength: 1, maxLength: 64 },
            password: { type: 'string', minLength: 1, maxLength: 1024 },
          },
        },
      },
    },
    async (req) => ok(await ctx.auth.login(req.body.username, req.body.password, req.ip), 'signed in'),
  );

  app.post(
    '/v2/logout',
    { config: { access: 'read' }, schema: { summary: 'Sign out: the token is refused from now on', tags: ['auth'] } },
    async (req) => {
      if (req.principal) await ctx.auth.logout(req.principal);
      return ok(null, 'signed out');
    },
  );

  app.get('/v2/me', { schema: { summary: 'Who is signed in', tags: ['auth'] } }, async (req) => {
    const p = req.principal;
    return ok(
      p ? { username: p.name, roles: [p.role.toUpperCase()], expiresAt: new Date(p.exp * 1000).toISOString() } : null,
    );
  });
}
