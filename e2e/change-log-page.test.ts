import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChangingSite,
  CREATED,
  DELETED,
  EDITED,
  startChangingSite,
} from '../packages/core/test/support/changing-site.js';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';
import {
  CHROMIUM,
  contains,
  POLL,
  SHOTS,
  seriousViolations,
  visible,
  WAIT,
  watchErrors,
} from './support/browser-kit.js';
import { addUsers, startServe } from './support/serve-process.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const PASSWORD = 'a long admin password';

/**
 * The change log on the page (issue 27 item 5), in Debian's Chromium against `greenfinger serve`: a small site that
 * changes between two runs, crawled from the monitor, edited, merged from the monitor; the change log shows each
 * run's counts, the merge's set opens by itself as the change stream says it published (the edited urls with the
 * diff of each, the new one, the deleted one), and the url ledger shows each url's change date and count.
 */
describe('the change log, in a browser', () => {
  let site: ChangingSite;
  let tmp: TempDir;
  let server: ChildProcess;
  let browser: Browser;
  let page: Page;
  let base = '';
  const errors: string[] = [];
  const env = () => ({ ...process.env, GF_DATA_STORE: join(tmp.path, 'data'), GF_LOG_LEVEL: 'warn', GF_WORKERS: '1' });

  /** No serious or critical axe violation, no page error, and a screenshot. */
  const screen = async (name: string) => {
    await expect.poll(() => page.locator('.loading').count(), POLL).toBe(0);
    expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
    expect(errors.splice(0), `errors on ${name}`).toEqual([]);
  };

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run pnpm run build first`);
    if (!existsSync(join(root, 'packages/web/dist/index.html')))
      throw new Error('the page is not built: pnpm run build');
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install chromium (scripts/test.sh does)`);
    mkdirSync(SHOTS, { recursive: true });
    site = await startChangingSite();
    tmp = createTempDir('gf-changes-page-');
    addUsers(bin, env(), [['admin', 'admin']], PASSWORD);
    const serve = await startServe(bin, env());
    server = serve.process;
    base = serve.base;
    // The catalog is made through the API (the form has its own test): the site under /a/, no pause.
    const login = await fetch(`${base}/v2/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: PASSWORD }),
    });
    const token = ((await login.json()) as { data: { token: string } }).data.token;
    const made = await fetch(`${base}/v2/catalog`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        name: 'groves',
        url: `${site.origin}/a/`,
        settings: { intervalMs: 0, threads: 4, hostConcurrency: 4, outputs: ['file', 'index'] },
      }),
    });
    expect(made.status, await made.text()).toBe(201);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 30_000,
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    watchErrors(page, errors);
  }, 90_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (server && server.exitCode === null) server.kill('SIGKILL');
    await site?.close();
    tmp?.remove();
  });

  it('a crawl, then a merge after the edit: each run its counts, the merge its urls and diffs, live', async () => {
    await page.goto(`${base}/`);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Catalogs', level: 1 }).waitFor(WAIT);
    await page.goto(`${base}/#/monitor/groves`);
    await visible(page.getByText(/No run has published yet/));

    await page.getByRole('button', { name: 'Start crawl' }).click();
    const live = page.getByTestId('change-live');
    await contains(live, 'The crawl of version 0 published: 31 added, 0 changed, 0 removed.', { timeout: 30_000 });
    const log = page.getByRole('table', { name: /What each publishing run of groves changed/ });
    await visible(log.getByRole('img', { name: '31 added, 0 changed, 0 removed' }));

    site.edit();
    await page.getByRole('button', { name: 'Merge (revisit what changed)' }).click();
    await contains(live, 'The merge of version 0 published: 1 added, 3 changed, 1 removed.', { timeout: 30_000 });
    // Newest first: the merge above the crawl.
    await expect
      .poll(() => log.getByRole('img').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))), POLL)
      .toEqual(['1 added, 3 changed, 1 removed', '31 added, 0 changed, 0 removed']);

    // The merge's set opened by itself, from the change stream: each edited page with its diff.
    const opened = page.getByRole('region', { name: 'Changes of the merge of version 0' });
    await visible(opened.getByRole('heading', { name: 'Changed (3)' }));
    const merged = page.url();
    expect(merged).toMatch(/#\/monitor\/groves\?run=/);
    const changed = opened.locator('ul.changed-list > li');
    await expect.poll(() => changed.count(), POLL).toBe(3);
    for (const [i, n] of [...EDITED].sort().entries()) {
      await contains(changed.nth(i).locator('a'), site.url('a', n));
      await contains(changed.nth(i).locator('pre.diff .del'), /^- .*still stands/);
      await contains(changed.nth(i).locator('pre.diff .ins'), /^\+ .*was replanted in spring/);
    }
    await contains(opened.getByRole('list', { name: 'Added urls' }), site.url('a', CREATED));
    await contains(opened.getByRole('list', { name: 'Removed urls' }), site.url('a', DELETED));
    await screen('monitor-changes');

    // Closed, then opened again by its link (an address to share).
    await page.getByRole('link', { name: 'Close the merge of version 0' }).click();
    await expect.poll(() => opened.count(), POLL).toBe(0);
    await page.getByRole('link', { name: 'Open the crawl of version 0' }).click();
    await visible(page.getByRole('heading', { name: 'Added (31)' }));
    expect(page.url()).toMatch(/#\/monitor\/groves\?run=/);
    expect(page.url()).not.toBe(merged);
  });

  it('the url ledger: each url its last change and how many', async () => {
    const edited = site.url('a', EDITED[0] as number);
    await page.goto(`${base}/#/urls?catalog=groves&q=${encodeURIComponent(new URL(edited).pathname)}`);
    const table = page.getByRole('table', { name: 'Urls of groves' });
    await contains(table, '(2 changes)');
    await screen('urls-changes');
    await table.getByRole('link', { name: `Why: ${edited}` }).click();
    await contains(page.getByTestId('changed'), /^\d\d\/\d\d\/\d{4}, .* \(2 changes in this version\)$/);
  });
});
