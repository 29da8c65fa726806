import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpRefusal } from '../envelope.js';
import type { Auth, Principal } from './auth.js';

/**
 * Who may call a route: `open` (sign-in, version, health, the description, the page), `read` (any signed-in role),
 * `write` (admin). A route that says nothing is `read` for GET and HEAD and `write` otherwise.
 */
export type Access = 'open' | 'read' | 'write';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export function accessOf(req: FastifyRequest): Access {
  // The API's description page (@fastify/swagger-ui registers its own routes) is open, like the description itself.
  if (req.routeOptions.url?.startsWith('/v2/docs')) return 'open';
  const declared = req.routeOptions.config?.access;
  if (declared) return declared;
  return req.method === 'GET' || req.method === 'HEAD' ? 'read' : 'write';
}

/** Every request passes here before its body is read: 401 without a valid token, 403 for a write without admin. */
export function installAccess(app: FastifyInstance, auth: Auth): void {
  app.addHook('onRequest', async (req) => {
    // Unknown endpoints answer 404 whoever asks (the not-found handler has no route config).
    if (!req.routeOptions.url) return;
    const access = accessOf(req);
    if (access === 'open') return;
    req.principal = await auth.authenticate(req.headers.authorization);
    if (access === 'write' && req.principal.role !== 'admin') {
      throw new HttpRefusal(
        403,
        `user "${req.principal.name}" has the support role, which may read but not change anything: sign in as an admin`,
      );
    }
  });
}
