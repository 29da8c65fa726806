import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../../core/test/support/corpus.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

interface Citation {
  id: string;
  url: string;
  title: string;
  catalog: string;
  version: number;
  fetched: string | null;
  passage: string;
}

/**
 * Markdown of each page, printed by `page --markdown`, written beside its text by replay, and the stored collection over
 * `greenfinger mcp` (stdio) with the official MCP client: a crawl of json.html and the pages it links (depth 1).
 */
describe('Markdown pages and greenfinger mcp over stdio', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let data = '';
  let jsonUrl = '';
  const env = () => ({ ...process.env, GF_LOG_LEVEL: 'warn', GF_WORKERS: '1' }) as Record<string, string>;
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [bin, ...args, '--data', data], { encoding: 'utf8', env: env(), timeout: 120_000 });

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`);
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-mcp-');
    data = join(tmp.path, 'data');
    jsonUrl = `${corpus.url}/library/json.html`;
    const crawled = cli([
      'crawl',
      '--url',
      `${corpus.url}/`,
      '--start-url',
      jsonUrl,
      '--depth',
      '1',
      '--name',
      'python',
      '--interval',
      '0',
      '--outputs',
      'file+index',
    ]);
    expect(crawled.status, crawled.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await corpus?.stop();
    tmp?.remove();
  });

  it("makes each page's Markdown with front matter; page --markdown prints it", () => {
    const r = cli(['page', jsonUrl, '--markdown']);
    expect(r.status, r.stderr).toBe(0);
    const md = r.stdout;
    expect(md).toMatch(/^---\ntitle: "json — JSON encoder and decoder[^\n]*"\n/);
    expect(md).toContain(`url: "${jsonUrl}"`);
    expect(md).toContain('catalog: "python"');
    expect(md).toMatch(/\nversion: 0\nfetched: "\d{4}-\d\d-\d\dT[^"]+"\nsource: html\n---\n/);
    // A heading, a fenced code block, links made absolute, the navigation left out.
    expect(md).toMatch(/\n# \[`json`\]\(http:\/\/127\.0\.0\.1:\d+\/library\/json\.html#module-json/);
    expect(md).toContain("```\n>>> import json\n>>> json.dumps(['foo'");
    expect(md).toContain(`](${corpus.url}/library/pickle.html#module-pickle`);
    expect(md).not.toMatch(/\]\((?!https?:|mailto:|#)[^)]*\)/);
    expect(md).not.toContain('Table of Contents');
    // The conversion table of json.html is a GFM table.
    expect(md).toMatch(/\n\| JSON \| Python \|\n\| --- \| --- \|\n\| object \| dict \|/);

    const bad = cli(['page', `${corpus.url}/no-such-page.html`, '--markdown']);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('replay --layers file writes the Markdown files from the stored html, with no request', () => {
    const pages = join(data, 'user', 'assets');
    const markdownFiles = () => (readdirSync(pages, { recursive: true }) as string[]).filter((f) => f.endsWith('.md'));
    const replay = () => {
      const r = cli(['replay', '--name', 'python', '--layers', 'file', '--json']);
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as {
        layers: { file: { markdown: number; pages: { intact: number; written: number } } };
        requests: number;
      };
    };
    // The crawl leaves them to be made: page --markdown above made its answer from the html.
    const before = cli(['page', jsonUrl, '--markdown']).stdout;
    expect(markdownFiles()).toEqual([]);
    const first = replay();
    expect(first.layers.file).toMatchObject({ markdown: 20, pages: { intact: 20, written: 0 } });
    expect(first.requests).toBe(0);
    expect(markdownFiles()).toHaveLength(20);
    expect(cli(['page', jsonUrl, '--markdown']).stdout).toBe(before);
    for (const f of markdownFiles().slice(0, 5)) rmSync(join(pages, f));
    const second = cli(['replay', '--name', 'python', '--layers', 'file']);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toMatch(
      /\nfile: pages 20 checked, 20 intact, 0 written, [^\n]*; Markdown written for 5 pages\n/,
    );
    expect(markdownFiles()).toHaveLength(20);
  });

  it('answers the official MCP client: tools, search with citations, get_page in pieces, catalogs', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', '--data', data],
      env: env(),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'greenfinger-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'crawl',
        'get_page',
        'list_catalogs',
        'merge',
        'search',
        'status',
        'why',
      ]);

      const found = await client.callTool({ name: 'search', arguments: { query: 'json dumps', size: 3 } });
      expect(found.isError, JSON.stringify(found.content)).toBeFalsy();
      const results = (found.structuredContent as { results: Citation[] }).results;
      expect(results[0]).toMatchObject({ url: jsonUrl, catalog: 'python', version: 0 });
      expect(results[0]?.fetched).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(results[0]?.passage.toLowerCase()).toContain('**dumps**');
      const text = (found.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(text).toContain(`[1] ${results[0]?.title}\n${jsonUrl}\ncatalog python, version 0, fetched 20`);

      // get_page: the whole Markdown in pieces, each within max_chars, joined back to the file page prints.
      const whole = cli(['page', jsonUrl, '--markdown']).stdout;
      let offset: number | null = 0;
      let joined = '';
      let pieces = 0;
      while (offset !== null) {
        const piece = await client.callTool({ name: 'get_page', arguments: { url: jsonUrl, offset, max_chars: 4000 } });
        expect(piece.isError, JSON.stringify(piece.content)).toBeFalsy();
        const s = piece.structuredContent as { next: number | null; offset: number; total: number; version: number };
        expect(s.offset).toBe(offset);
        expect(s.version).toBe(0);
        const body = (piece.content as Array<{ text: string }>)[0]?.text ?? '';
        const part = s.next === null ? body : body.slice(0, body.lastIndexOf('\n\n['));
        expect(part.length).toBeLessThanOrEqual(4000);
        if (s.next !== null) expect(body).toContain(`continue with get_page offset=${s.next}`);
        joined += part;
        offset = s.next;
        pieces++;
      }
      expect(pieces).toBeGreaterThan(3);
      expect(joined).toBe(whole);

      const byId = await client.callTool({ name: 'get_page', arguments: { id: results[0]?.id } });
      expect((byId.structuredContent as { url: string }).url).toBe(jsonUrl);
      const missing = await client.callTool({ name: 'get_page', arguments: {} });
      expect(missing.isError).toBe(true);
      expect((missing.content as Array<{ text: string }>)[0]?.text).toMatch(/^url: /);

      const catalogs = await client.callTool({ name: 'list_catalogs', arguments: {} });
      expect((catalogs.structuredContent as { catalogs: Array<{ name: string }> }).catalogs).toEqual([
        expect.objectContaining({ name: 'python', version: 0 }),
      ]);
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['greenfinger://catalog/python']);
      const read = await client.readResource({ uri: 'greenfinger://catalog/python' });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ name: 'python', version: 0 });

      const why = await client.callTool({ name: 'why', arguments: { url: `${corpus.url}/library/index.html` } });
      expect((why.structuredContent as { row: { state: string; outcome: string } }).row).toMatchObject({
        state: 'done',
        outcome: 'SAVED',
      });
      const status = await client.callTool({ name: 'status', arguments: {} });
      expect(status.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
