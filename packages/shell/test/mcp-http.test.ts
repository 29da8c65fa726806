import { type ChildProcess, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUsers, startServe } from '../../../e2e/support/serve-process.js';
import { type Corpus, startCorpus } from '../../core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
const PASSWORD = 'a long enough password';

/**
 * `/mcp` on `greenfinger serve` (streamable HTTP) with the official MCP client, the bearer token an API token whose
 * role applies; and `GET /v2/resource/{id}/markdown`. Over a depth-1 crawl of the python docs from json.html.
 */
describe('/mcp and the Markdown of a page on greenfinger serve', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let server: ChildProcess | undefined;
  let base = '';
  let admin = '';
  let support = '';
  let jsonUrl = '';
  const env = () => ({ ...process.env, GF_DATA_STORE: join(tmp.path, 'data'), GF_LOG_LEVEL: 'warn', GF_WORKERS: '1' });
  const login = async (username: string) => {
    const res = await fetch(`${base}/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: PASSWORD }),
    });
    return ((await res.json()) as { data: { token: string } }).data.token;
  };
  const connect = async (token: string) => {
    const client = new Client({ name: 'greenfinger-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return client;
  };

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`);
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-mcp-http-');
    jsonUrl = `${corpus.url}/library/json.html`;
    const crawl = ['crawl', '--url', `${corpus.url}/`, '--start-url', jsonUrl, '--depth', '1', '--name', 'python'];
    const crawled = spawnSync(process.execPath, [bin, ...crawl, '--interval', '0', '--outputs', 'file+index'], {
      env: env(),
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(crawled.status, crawled.stderr).toBe(0);
    addUsers(
      bin,
      env(),
      [
        ['admin', 'admin'],
        ['helpdesk', 'support'],
      ],
      PASSWORD,
    );
    const serve = await startServe(bin, env());
    server = serve.process;
    base = serve.base;
    admin = await login('admin');
    support = await login('helpdesk');
  }, 180_000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server?.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    await corpus?.stop();
    tmp?.remove();
  });

  it('lists the tools, cites json.html for "json dumps", and returns its Markdown in pieces', async () => {
    const client = await connect(admin);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        expect.arrayContaining(['search', 'get_page', 'list_catalogs', 'why', 'crawl', 'merge', 'status']),
      );
      const found = await client.callTool({ name: 'search', arguments: { query: 'json dumps', catalog: 'python' } });
      const results = (found.structuredContent as { results: Array<Record<string, unknown>> }).results;
      expect(results[0]).toMatchObject({ url: jsonUrl, title: expect.stringContaining('json'), version: 0 });
      expect(String(results[0]?.fetched)).toMatch(/^\d{4}-\d\d-\d\dT/);

      const first = await client.callTool({ name: 'get_page', arguments: { url: jsonUrl, max_chars: 2000 } });
      const s = first.structuredContent as { next: number | null; total: number; title: string };
      expect(s.next).toBeGreaterThan(1000);
      expect(s.total).toBeGreaterThan(10_000);
      const text = (first.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(text.startsWith(`---\ntitle: ${JSON.stringify(s.title)}\nurl: "${jsonUrl}"`)).toBe(true);
      const second = await client.callTool({ name: 'get_page', arguments: { url: jsonUrl, offset: s.next } });
      expect((second.structuredContent as { offset: number }).offset).toBe(s.next);

      const status = await client.callTool({ name: 'status', arguments: {} });
      expect(status.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });

  it('a support token reads but cannot call crawl; no token is 401', async () => {
    const client = await connect(support);
    try {
      const found = await client.callTool({ name: 'search', arguments: { query: 'json dumps' } });
      expect(found.isError).toBeFalsy();
      const crawl = await client.callTool({ name: 'crawl', arguments: { url: `${corpus.url}/` } });
      expect(crawl.isError).toBe(true);
      expect((crawl.content as Array<{ text: string }>)[0]?.text).toMatch(
        /support role, which may read but not change/,
      );
      const merge = await client.callTool({ name: 'merge', arguments: { catalog: 'python' } });
      expect(merge.isError).toBe(true);
    } finally {
      await client.close();
    }
    const anonymous = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(anonymous.status).toBe(401);
    const get = await fetch(`${base}/mcp`, { headers: { authorization: `Bearer ${support}` } });
    expect(get.status).toBe(405);
  });

  it('GET /v2/resource/{id}/markdown: the page as Markdown, to any signed-in role', async () => {
    const listed = await fetch(`${base}/v2/resource?catalog=python&q=library/json.html`, {
      headers: { authorization: `Bearer ${support}` },
    });
    const item = ((await listed.json()) as { data: { items: Array<{ id: string; url: string }> } }).data.items.find(
      (i) => i.url === jsonUrl,
    );
    expect(item).toBeDefined();
    const url = `${base}/v2/resource/${item?.id}/markdown`;
    const res = await fetch(url, { headers: { authorization: `Bearer ${support}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(res.headers.get('x-markdown-source')).toBe('html');
    expect(await res.text()).toMatch(/^---\ntitle: "json — JSON encoder and decoder/);
    const download = await fetch(`${url}?download=true`, { headers: { authorization: `Bearer ${support}` } });
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="json.md"');
    expect((await fetch(url)).status).toBe(401);
    const missing = await fetch(`${base}/v2/resource/00000000-0000-4000-8000-000000000000/markdown`, {
      headers: { authorization: `Bearer ${support}` },
    });
    expect(missing.status).toBe(404);
    const bad = await fetch(`${url}?download=maybe`, { headers: { authorization: `Bearer ${support}` } });
    expect(bad.status).toBe(400);
  });
});
