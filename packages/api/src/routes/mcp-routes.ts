import type { FastifyInstance } from 'fastify';
import type { ApiContext } from '../context.js';

/**
 * `/mcp`: the MCP server of core (`@greenfinger/core/mcp`) over streamable HTTP, stateless — each POST is answered
 * by a server made for its caller, so the bearer token's role decides which tools act (admin tools refuse support).
 * GET and DELETE (a session's stream and its end) do not exist without sessions: 405.
 */
export function mcpRoutes(app: FastifyInstance, { gf }: ApiContext): void {
  // Loaded on the first call: the SDK is only needed here.
  let sdk:
    | Promise<
        [typeof import('@greenfinger/core/mcp'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]
      >
    | undefined;

  app.post(
    '/mcp',
    // Any signed-in role may call; the tools themselves refuse what a role may not do.
    { config: { access: 'read' }, schema: { hide: true } },
    async (req, reply) => {
      sdk ??= Promise.all([
        import('@greenfinger/core/mcp'),
        import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      ]);
      const [{ createGreenfingerMcpServer }, { StreamableHTTPServerTransport }] = await sdk;
      const principal = req.principal;
      const caller = {
        name: principal?.name ?? 'unknown',
        role: principal?.role === 'admin' ? 'admin' : 'support',
      } as const;
      const server = createGreenfingerMcpServer(gf, { caller });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    },
  );

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      config: { access: 'read' },
      schema: { hide: true },
      handler: async (_req, reply) =>
        reply
          .status(405)
          .header('allow', 'POST')
          .send({
            jsonrpc: '2.0',
            error: { code: -32000, message: 'this MCP endpoint is stateless: POST each request' },
            id: null,
          }),
    });
  }
}
