import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { CrawlerError, envDataStore } from '@greenfinger/core/internal';
import { type CommandSpec, defineCommand } from '../command-spec.js';
import { EXIT, type Io } from '../io.js';
import { onStopSignals } from '../stop-signals.js';
import { dataOption } from './options.js';

interface McpOptions {
  data?: string;
  readOnly?: boolean;
}

/** `mcp`: the stored collection as an MCP server on stdin/stdout, until the client closes stdin. */
export const MCP_COMMAND = defineCommand<McpOptions>({
  cli: 'mcp',
  summary: 'Serve the stored collection to an MCP client (an agent, an editor) over stdio: search, pages, catalogs.',
  options: [
    dataOption('data root holding system/ and user/ (default ./data or GF_DATA_STORE)'),
    { flags: '--read-only', description: 'refuse the admin tools (crawl, merge, status), as for a support role' },
  ],
  details:
    'Speaks MCP (JSON-RPC) on stdin/stdout; the log goes to data/system/logs. Tools: search, get_page,\n' +
    'list_catalogs, why, and crawl, merge, status (crawls run in this process while the client is connected).\n' +
    'Each published catalog is also a resource, greenfinger://catalog/{name}. See docs/mcp.md.',
  examples: [
    'greenfinger mcp --data ./data',
    '{"mcpServers": {"greenfinger": {"command": "greenfinger", "args": ["mcp", "--data", "/srv/greenfinger"]}}}',
  ],
  run: async (ctx, _args, opts) => {
    const root = resolve(opts.data ?? envDataStore());
    if (!existsSync(root)) {
      throw new CrawlerError('NOT_FOUND', `the data root ${root} does not exist: nothing was crawled there`, {
        fix: 'give --data the folder a crawl wrote (or GF_DATA_STORE)',
      });
    }
    const gf = await ctx.gf(true);
    // Loaded here: the SDK is only needed by this command.
    const [{ createGreenfingerMcpServer }, { StdioServerTransport }] = await Promise.all([
      import('@greenfinger/core/mcp'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]);
    const caller = { name: userInfo().username, role: opts.readOnly ? ('support' as const) : ('admin' as const) };
    const server = createGreenfingerMcpServer(gf, { caller });
    await server.connect(new StdioServerTransport());
    await untilClosed(ctx.io, () => server.close());
    await gf.jobs.close();
    return EXIT.ok;
  },
}) satisfies CommandSpec;

/** Until stdin ends (the client went away) or a stop signal: then close the server. */
function untilClosed(io: Io, close: () => Promise<void>): Promise<void> {
  return new Promise((done) => {
    let closing = false;
    const stop = () => {
      if (closing) return;
      closing = true;
      off();
      close().then(done, done);
    };
    const off = onStopSignals(io, { first: { stop } });
    process.stdin.once('end', stop);
    process.stdin.once('close', stop);
  });
}
