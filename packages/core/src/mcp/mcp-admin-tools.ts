import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Greenfinger } from '../services/greenfinger.js';
import type { Job } from '../services/job.js';
import { answer, catalogRef, guarded, type McpCaller, requireAdmin } from './mcp-answers.js';

/** A job as the admin tools show it. */
function jobLine(job: Job): string {
  const saved = job.counters?.saved ?? 0;
  return `job ${job.jobId}: ${job.action} of ${job.catalog} ${job.state}, version ${job.version ?? '-'}, ${saved} pages saved, ${job.queued} queued`;
}

function jobFacts(job: Job) {
  return {
    jobId: job.jobId,
    catalog: job.catalog,
    catalogId: job.catalogId,
    action: job.action,
    state: job.state,
    version: job.version,
    saved: job.counters?.saved ?? 0,
    queued: job.queued,
    startedAt: job.startedAt,
    endedAt: job.endedAt,
    error: job.error,
  };
}

/** `crawl`, `merge` and `status`: jobs in the background of the process serving MCP; admins only. */
export function registerAdminTools(server: McpServer, gf: Greenfinger, caller: McpCaller): void {
  server.registerTool(
    'crawl',
    {
      title: 'Crawl a site (admin)',
      description:
        'Start crawling a site into a catalog (created for a new url) in the background; status follows it. Admins only.',
      inputSchema: {
        url: z.string().min(1).max(4000).describe('the start url'),
        name: z.string().min(1).max(200).optional().describe('the catalog name for a new site'),
        max_pages: z.number().int().min(1).optional(),
        depth: z.number().int().min(-1).optional(),
      },
    },
    (args) =>
      guarded(async () => {
        requireAdmin(caller, 'crawl');
        const job = await gf.jobs.start({
          url: args.url,
          ...(args.name ? { name: args.name } : {}),
          settings: {
            ...(args.max_pages !== undefined ? { maxPages: args.max_pages } : {}),
            ...(args.depth !== undefined ? { depth: args.depth } : {}),
          },
        });
        return answer(`started ${jobLine(job)}`, { job: jobFacts(job) });
      }),
  );

  server.registerTool(
    'merge',
    {
      title: 'Recrawl a catalog into a new version (admin)',
      description:
        'Merge: fetch what changed on the site into a new version of the catalog, in the background. Admins only.',
      inputSchema: { catalog: z.string().min(1).max(200).describe('the catalog name or id') },
    },
    (args) =>
      guarded(async () => {
        requireAdmin(caller, 'merge');
        const job = await gf.jobs.start({ action: 'merge', ...catalogRef(args.catalog) });
        return answer(`started ${jobLine(job)}`, { job: jobFacts(job) });
      }),
  );

  server.registerTool(
    'status',
    {
      title: 'What runs (admin)',
      description:
        'The jobs of this process (running, then the last ended) and the runs of other processes. Admins only.',
      annotations: { readOnlyHint: true },
    },
    () =>
      guarded(async () => {
        requireAdmin(caller, 'status');
        const jobs = gf.jobs.list().slice(0, 20);
        const runs = await gf.crawler.status();
        const lines = [
          ...jobs.map(jobLine),
          ...runs.map((r) => `run of ${r.catalogId}: process ${r.pid} on ${r.where} since ${r.since}`),
        ];
        return answer(lines.length ? lines.join('\n') : 'nothing runs and no job ran in this process', {
          jobs: jobs.map(jobFacts),
          runs,
        });
      }),
  );
}
