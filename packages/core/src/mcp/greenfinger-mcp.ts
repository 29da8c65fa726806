import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CrawlerError } from '../errors.js';
import type { Greenfinger } from '../services/greenfinger.js';
import { markdownPiece } from '../services/page-service.js';
import type { SearchRequest } from '../services/search-service.js';
import { registerAdminTools } from './mcp-admin-tools.js';
import { answer, catalogRef, guarded, type McpCaller, passageOf } from './mcp-answers.js';

export type { McpCaller } from './mcp-answers.js';

/** What an MCP server of the stored collection is made with. */
export interface GreenfingerMcpOptions {
  /** Who calls: admin tools refuse any role but admin. */
  caller: McpCaller;
  /** The server's version, as the client is told. @default '0.1.0' */
  version?: string;
}

/** The longest piece get_page returns, in characters, and the default. */
const PIECE_MAX = 40_000;
const PIECE_DEFAULT = 8_000;
/** A passage when search has no highlight for a hit (a meaning search): the start of its text. */
const PASSAGE_CHARS = 300;

/**
 * An MCP server over a node's stored collection: `search` with citations, `get_page` (a page's Markdown in pieces),
 * `list_catalogs`, `why`, and for admins `crawl`, `merge`, `status`; each published catalog is also a resource
 * (`greenfinger://catalog/{name}`). Transport-free: the shell connects it to stdio, the API to streamable HTTP.
 */
export function createGreenfingerMcpServer(gf: Greenfinger, options: GreenfingerMcpOptions): McpServer {
  const server = new McpServer(
    { name: 'greenfinger', version: options.version ?? '0.1.0' },
    {
      instructions:
        'Greenfinger answers from a stored, versioned collection of crawled sites. Use search to find pages (each ' +
        'result cites url, title, catalog, version and fetched date), then get_page for its Markdown.',
    },
  );
  registerReadTools(server, gf);
  registerAdminTools(server, gf, options.caller);
  registerCatalogResources(server, gf);
  return server;
}

function registerReadTools(server: McpServer, gf: Greenfinger): void {
  server.registerTool(
    'search',
    {
      title: 'Search the collection',
      description:
        'Search the crawled pages. Each result is a citation: url, title, catalog, version, fetched date and the ' +
        'passage that matched. mode: words (full text), meaning (vectors) or hybrid; default: hybrid where vectors exist.',
      inputSchema: {
        query: z.string().trim().min(1).max(2000).describe('what to look for'),
        mode: z.enum(['words', 'meaning', 'hybrid']).optional(),
        catalog: z.string().min(1).max(200).optional().describe('a catalog name or id (default: every catalog)'),
        version: z.number().int().min(0).optional().describe('the catalog version; search reads the served one'),
        size: z.number().int().min(1).max(50).default(5),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        if (args.version !== undefined) await checkServedVersion(gf, args.catalog, args.version);
        const request: SearchRequest = {
          q: args.query,
          mode: args.mode as SearchRequest['mode'],
          catalogs: args.catalog ? [args.catalog] : undefined,
          size: args.size,
        };
        const found = await gf.search.search(request);
        const records = (await gf.database()).resources;
        const results = await Promise.all(
          found.results.map(async (hit) => {
            const row = await records.getResource(hit.id);
            const highlight = hit.highlights.find((h) => h.includes('<em>')) ?? hit.highlights[0];
            const passage = highlight
              ? passageOf(highlight)
              : ((await gf.blobs.getText(hit.textPath)) ?? '').slice(0, PASSAGE_CHARS).replace(/\s+/g, ' ').trim();
            return {
              id: hit.id,
              url: hit.url,
              title: hit.title,
              catalog: hit.catalog,
              version: hit.version,
              fetched: row?.fetchedAt ?? null,
              passage,
            };
          }),
        );
        const text = results.length
          ? results
              .map(
                (r, i) =>
                  `[${i + 1}] ${r.title}\n${r.url}\ncatalog ${r.catalog}, version ${r.version}, fetched ${r.fetched ?? '-'}, id ${r.id}\n${r.passage}`,
              )
              .join('\n\n')
          : (found.note ?? `nothing found for "${args.query}"`);
        return answer(text, { mode: found.mode, total: found.total, results });
      }),
  );

  server.registerTool(
    'get_page',
    {
      title: 'Read a page as Markdown',
      description:
        'The Markdown of a saved page (front matter: title, url, catalog, version, fetched), by url or by id, in ' +
        'pieces of at most max_chars characters. When more follows, the answer says the offset to continue from.',
      inputSchema: {
        url: z.string().min(1).max(4000).optional(),
        id: z.string().min(1).max(200).optional(),
        catalog: z.string().min(1).max(200).optional(),
        version: z.number().int().min(0).optional(),
        offset: z.number().int().min(0).default(0),
        max_chars: z.number().int().min(500).max(PIECE_MAX).default(PIECE_DEFAULT),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        if (!args.url && !args.id) throw new CrawlerError('BAD_INPUT', 'url: give the url of a page or its id');
        const page = await gf.pages.markdown({
          id: args.id,
          url: args.id ? undefined : args.url,
          catalog: args.catalog ? catalogRef(args.catalog) : undefined,
          version: args.version,
        });
        const piece = markdownPiece(page.markdown, args.offset, args.max_chars);
        const tail =
          piece.next === undefined
            ? ''
            : `\n\n[${piece.next} of ${piece.total} characters; continue with get_page offset=${piece.next}]`;
        const { markdown: _whole, ...cite } = page;
        return answer(`${piece.text}${tail}`, {
          ...cite,
          offset: piece.offset,
          next: piece.next ?? null,
          total: piece.total,
        });
      }),
  );

  server.registerTool(
    'list_catalogs',
    {
      title: 'List the catalogs',
      description: 'The published catalogs (crawled sites): name, id, url, the version search reads, versions kept.',
      annotations: { readOnlyHint: true },
    },
    () =>
      guarded(async () => {
        const catalogs = await catalogList(gf);
        const text = catalogs.length
          ? catalogs.map((c) => `${c.name} (${c.id}): ${c.url}, version ${c.version}`).join('\n')
          : 'no catalog is published yet';
        return answer(text, { catalogs });
      }),
  );

  server.registerTool(
    'why',
    {
      title: "A url's fate",
      description: 'Why a url is, or is not, in a catalog: its state and last outcome in the url ledger.',
      inputSchema: {
        url: z.string().min(1).max(4000),
        catalog: z.string().min(1).max(200).optional(),
        version: z.number().int().min(0).optional(),
      },
      annotations: { readOnlyHint: true },
    },
    (args) =>
      guarded(async () => {
        const fate = await gf.ledger.why(args.url, {
          ...(args.catalog ? { catalog: catalogRef(args.catalog) } : {}),
          ...(args.version !== undefined ? { version: args.version } : {}),
        });
        const r = fate.row;
        const state = r ? `${r.state}${r.outcome ? ` (${r.outcome}${r.detail ? `: ${r.detail}` : ''})` : ''}` : '-';
        const text = `${fate.url}\ncatalog ${fate.catalog.name}, version ${fate.version}, state ${state}\n${fate.explanation}`;
        return answer(text, { ...fate, row: fate.row ?? null });
      }),
  );
}

/** Each published catalog as a resource: its JSON (name, id, url, versions). */
function registerCatalogResources(server: McpServer, gf: Greenfinger): void {
  server.registerResource(
    'catalog',
    new ResourceTemplate('greenfinger://catalog/{name}', {
      list: async () => ({
        resources: (await catalogList(gf)).map((c) => ({
          uri: `greenfinger://catalog/${encodeURIComponent(c.name)}`,
          name: c.name,
          description: `${c.url}, version ${c.version}`,
          mimeType: 'application/json',
        })),
      }),
    }),
    {
      description: 'A crawled site: its url, the version search reads, the versions kept',
      mimeType: 'application/json',
    },
    async (uri, variables) => {
      const name = decodeURIComponent(String(variables.name ?? ''));
      const found = (await catalogList(gf)).find((c) => c.name === name || c.id === name);
      if (!found) throw new CrawlerError('NOT_FOUND', `no published catalog "${name}"`);
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(found, null, 2) }] };
    },
  );
}

/** The published catalogs, as tools and resources show them. */
async function catalogList(gf: Greenfinger) {
  const published = await gf.published.list();
  return published
    .filter((c) => c.searchVersion >= 0)
    .map((c) => ({ id: c.catalogId, name: c.name, url: c.url, version: c.searchVersion, versions: c.versions }));
}

/** Search reads a catalog's served version only: another version is refused, naming the one served. */
async function checkServedVersion(gf: Greenfinger, catalog: string | undefined, version: number): Promise<void> {
  if (!catalog) throw new CrawlerError('BAD_INPUT', 'version: name the catalog the version belongs to');
  const found = (await catalogList(gf)).find((c) => c.name === catalog || c.id === catalog);
  if (found && found.version !== version) {
    throw new CrawlerError(
      'BAD_INPUT',
      `version: search reads version ${found.version} of ${found.name}, the one it serves; version ${version} is kept for browsing (get_page with version)`,
    );
  }
}
