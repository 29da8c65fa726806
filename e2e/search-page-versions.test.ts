import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../packages/core/test/support/loopback.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';
import { addUsers, startServe } from './support/serve-process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const PASSWORD = 'a long admin password';
const CHROMIUM = process.env.GF_CHROMIUM ?? '/usr/bin/chromium';
const POLL = { timeout: 15_000, interval: 100 };
const run = promisify(execFile);
const axeSource = readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8');

/** axe-core in the page: the ids of its serious and critical violations. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(c: Document): Promise<{ violations: Array<{ id: string; impact: string | null }> }> };
      }
    ).axe;
    const { violations } = await axe.run(document);
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
  });
}

/** Two pages whose article says `word`: the site a crawl keeps as version 0, and after a change as version 1. */
function startSite(): { server: Server; say: (word: string) => void } {
  let word = 'amberwick';
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = (title: string, body: string) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html><head><title>${title}</title></head><body><article>${body}</article></body></html>`);
    if (path === '/') return page('Harbour', '<p><a href="/ferry.html">ferry</a></p>');
    if (path === '/ferry.html')
      return page(`The ${word} ferry`, `<p>The ${word} ferry leaves the northern pier at dawn, every day.</p>`);
    res.writeHead(404).end('not found');
  });
  return { server, say: (w) => (word = w) };
}

/**
 * The search page's version picker and category choice in Debian's Chromium against `greenfinger serve`: a catalog
 * crawled twice (the old word in version 0, the new one in version 1, served), searched for the old word.
 */
describe('the search page picks a kept version and a category', () => {
  const site = startSite();
  let tmp: TempDir;
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let base = '';

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run pnpm run build first`);
    if (!existsSync(join(root, 'packages/web/dist/index.html')))
      throw new Error('the page is not built: pnpm run build');
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);
    const origin = `http://127.0.0.1:${await listen(site.server)}`;
    tmp = createTempDir('gf-page-versions-');
    const env = { ...process.env, GF_DATA_STORE: join(tmp.path, 'data'), GF_LOG_LEVEL: 'warn', GF_WORKERS: '1' };
    // Not spawnSync: the site answers from this process's event loop.
    const cli = async (...args: string[]) => {
      const r = await run(process.execPath, [bin, ...args], { env, encoding: 'utf8', timeout: 60_000 }).catch(
        (err: Error & { stderr?: string }) => {
          throw new Error(`${args.join(' ')}: ${err.stderr ?? err.message}`);
        },
      );
      return r.stdout;
    };
    await cli('crawl', '--url', `${origin}/`, '--name', 'harbour', '--interval', '0', '--outputs', 'file+index');
    site.say('zephyrine');
    await cli('rebuild', '--name', 'harbour');
    addUsers(bin, env, [['helpdesk', 'support']], PASSWORD);
    const serve = await startServe(bin, env);
    server = serve.process;
    base = serve.base;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 30_000,
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    });
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${base}/`);
    await page.getByLabel('Username').fill('helpdesk');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Catalogs', level: 1 }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (server && server.exitCode === null) server.kill('SIGKILL');
    await closeServer(site.server);
    tmp?.remove();
  });

  const status = () =>
    page
      .getByRole('status')
      .first()
      .textContent({ timeout: 1_000 })
      .catch(() => '');

  it('finds the old word only in version 0, chosen in the picker, and goes back to the served version', async () => {
    await page.goto(`${base}/#/search?q=amberwick&catalog=harbour&mode=words`);
    await expect.poll(status, POLL).toMatch(/^0 results by words/);
    const picker = page.getByLabel('Version');
    await expect
      .poll(() => picker.locator('option').allTextContents(), POLL)
      .toEqual(['The served version', 'Version 0 · kept · 2 pages', 'Version 1 · served · 2 pages']);
    await picker.selectOption('0');
    await expect.poll(status, POLL).toMatch(/^1 result by words/);
    expect(page.url()).toMatch(/version=0/);
    await expect.poll(() => page.locator('.results .meta').first().textContent(), POLL).toMatch(/harbour · version 0/);
    expect(await seriousViolations(page)).toEqual([]);
    await picker.selectOption('');
    await expect.poll(status, POLL).toMatch(/^0 results by words/);
  });

  it('offers the categories and filters by one; choosing another catalog drops the version', async () => {
    await page.goto(`${base}/#/search?q=zephyrine&mode=words`);
    await expect.poll(status, POLL).toMatch(/^1 result by words/);
    const category = page.getByLabel('Category');
    await expect.poll(() => category.locator('option').allTextContents(), POLL).toContain('other (1)');
    await category.selectOption('news');
    await expect
      .poll(() => page.getByRole('alert').first().textContent(), POLL)
      .toMatch(/no published catalog of category "news"/);
    await category.selectOption('other');
    await expect.poll(status, POLL).toMatch(/^1 result by words/);
    expect(page.url()).toMatch(/cat=other/);
    await page.goto(`${base}/#/search?q=amberwick&catalog=harbour&version=0&mode=words`);
    await expect.poll(status, POLL).toMatch(/^1 result by words/);
    await page.getByLabel('Catalog').selectOption('');
    await expect.poll(status, POLL).toMatch(/^0 results by words/);
    expect(page.url()).not.toMatch(/version=/);
    expect(await page.getByLabel('Version').count()).toBe(0);
  });
});
