import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';
import { ok } from '../envelope.js';

/** The cluster this server is a member of (`serve --cluster`): its name and how to read its members now. */
export interface ClusterView {
  name: string;
  /** `status --cluster --json`: the leader, the members (each with its part of the run), the run in progress. */
  status(): Promise<unknown>;
}

/** `GET /v2/cluster`: the cluster's members, leader and run when this server is a member; `{cluster: null}` if not. */
export function clusterRoutes(app: FastifyInstance, _ctx: ApiContext, cluster: ClusterView | undefined): void {
  app.get(
    '/v2/cluster',
    {
      schema: {
        summary: 'The cluster this server is a member of: leader, members, the run in progress (null when none)',
        tags: ['system'],
      },
    },
    async () => ok(cluster ? await cluster.status() : { cluster: null }),
  );
}
