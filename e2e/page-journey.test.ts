import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Corpus, startCorpus } from '../packages/core/test/support/corpus.js';
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

/** The search page in Debian's Chromium against `greenfinger serve` over the python docs: a whole user journey. */
describe('the page, in a browser', () => {
  let corpus: Corpus;
  let tmp: TempDir;
  let server: ChildProcess;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let base = '';
  const errors: string[] = [];
  const checked: Record<string, number> = {};
  const env = () => ({ ...process.env, GF_DATA_STORE: join(tmp.path, 'data'), GF_LOG_LEVEL: 'warn', GF_WORKERS: '1' });

  /** Each screen: no serious or critical axe violation, no page error, and a screenshot. */
  const screen = async (name: string, p: Page = page) => {
    await p.waitForLoadState('networkidle', { timeout: 5_000 }).catch(() => undefined);
    await expect.poll(() => p.locator('.loading').count(), POLL).toBe(0);
    expect(await seriousViolations(p), `axe on ${name}`).toEqual([]);
    checked[name] = (checked[name] ?? 0) + 1;
    const width = p.viewportSize()?.width ?? 0;
    await p.screenshot({ path: join(SHOTS, `${name}${width <= 400 ? '-360' : ''}.png`), fullPage: true });
    const seenErrors = errors.splice(0);
    expect(seenErrors, `errors on ${name}`).toEqual([]);
  };

  const signIn = async (p: Page, username: string) => {
    await p.goto(`${base}/`);
    await p.getByLabel('Username').fill(username);
    await p.getByLabel('Password').fill(PASSWORD);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('heading', { name: 'Catalogs', level: 1 }).waitFor(WAIT);
  };

  beforeAll(async () => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run pnpm run build first`);
    if (!existsSync(join(root, 'packages/web/dist/index.html')))
      throw new Error('the page is not built: pnpm run build');
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install chromium (scripts/test.sh does)`);
    mkdirSync(SHOTS, { recursive: true });
    corpus = await startCorpus('python');
    tmp = createTempDir('gf-page-');
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
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      timeout: 30_000,
      args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
    watchErrors(page, errors);
  }, 120_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    if (server && server.exitCode === null) server.kill('SIGKILL');
    await corpus?.stop();
    tmp?.remove();
  });

  it('signs in as admin', async () => {
    await page.goto(`${base}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
    await screen('sign-in');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await contains(page.getByRole('alert'), /Not signed in/);
    await signIn(page, 'admin');
    await visible(page.getByText('No catalog yet.'));
  });

  it('creates a catalog over the python docs; the form shows the API refusing a field next to it', async () => {
    const origin = new URL(corpus.url).origin;
    await page.getByRole('link', { name: 'New catalog' }).click();
    await page.getByLabel('Url (required)').waitFor(WAIT);
    await page.getByLabel('Name').fill('python');
    await page.getByLabel('Url (required)').fill(`${origin}/`);
    await page.getByLabel('Start url').fill(corpus.startUrl);
    await page.getByText('Limits').click();
    await page.getByLabel('Most pages').fill('0');
    await page.getByLabel('Pause between requests (ms)').fill('0');
    await page.getByRole('button', { name: 'Create catalog' }).click();
    // The API's own line, under the field it names.
    await contains(page.locator('#e-maxPages'), 'maxPages must be >= 1');
    await expect.poll(() => page.getByLabel('Most pages').getAttribute('aria-invalid'), POLL).toBe('true');
    await screen('catalog-form');
    await page.getByLabel('Most pages').fill('10000');
    await page.getByRole('button', { name: 'Create catalog' }).click();
    await page.getByRole('heading', { name: 'Monitor: python' }).waitFor(WAIT);

    // A small second catalog with vectors, for the meaning search (embedding takes about a second a page).
    await page.goto(`${base}/#/catalogs/new`);
    await page.getByLabel('Name').fill('python-meaning');
    await page.getByLabel('Url (required)').fill(`${origin}/library/`);
    await page.getByLabel('Start url').fill(`${origin}/library/json.html`);
    await page.getByText('Limits').click();
    await page.getByLabel('Most pages').fill('8');
    await page.getByLabel('Pause between requests (ms)').fill('0');
    await page.getByLabel(/vector/).check();
    // A schedule the server cannot run is refused under its field; a yearly one (1 January, 03:00) is kept.
    await page.getByLabel('Schedule').fill('every tuesday');
    await page.getByRole('button', { name: 'Create catalog' }).click();
    await contains(page.locator('#e-schedule'), /every tuesday.*every 6h/);
    await page.getByLabel('Schedule').fill('0 3 1 1 *');
    await page.getByRole('button', { name: 'Create catalog' }).click();
    await page.getByRole('heading', { name: 'Monitor: python-meaning' }).waitFor(WAIT);
  });

  it('starts each crawl and watches the monitor reach the end', async () => {
    for (const name of ['python', 'python-meaning']) {
      await page.goto(`${base}/#/monitor/${name}`);
      await page.getByRole('button', { name: 'Start crawl' }).click();
      await contains(page.locator('.now'), /ended/, { timeout: 90_000 });
      await contains(page.locator('.now'), 'the version is published');
    }
    // The yearly schedule given in the form: its next run, and what the first crawl changed.
    await page.goto(`${base}/#/monitor/python-meaning`);
    await contains(
      page.getByTestId('schedule'),
      /^Runs by itself \(0 3 1 1 \*\): next 01\/01\/\d{4}, 03:00:00 · its last run changed \d+ added/,
    );
    await page.goto(`${base}/#/monitor/python`);
    await visible(page.getByRole('link', { name: /^SAVED: / }));
    await contains(page.getByRole('table', { name: /Each run of python/ }), 'crawl');
    await screen('monitor');
    // The bar's outcomes lead to their urls.
    await page.getByRole('link', { name: /^REJECTED_NOTFOUND: 1 url/ }).click();
    await contains(page.getByRole('table', { name: /Urls of python/ }), 'changelog.html');
    await page.goto(`${base}/#/catalogs`);
    await contains(page.getByRole('listitem').filter({ hasText: 'python-meaning' }).first(), 'serving version 0');
    await screen('catalogs');
  });

  it('searches by words, by meaning and for pictures', async () => {
    await page.getByRole('link', { name: 'Search', exact: true }).first().click();
    await page.getByRole('searchbox').waitFor(WAIT);
    await page.getByLabel('Catalog').selectOption('python');
    await page.getByRole('searchbox').fill('json dumps');
    await page.getByRole('searchbox').press('Enter');
    const links = page.locator('ol.results h2 a');
    await visible(links.first());
    const firstThree = (await links.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))).slice(0, 3);
    expect(firstThree.join(' ')).toMatch(/library\/json\.html/);
    await visible(page.getByRole('link', { name: /^json — JSON encoder and decoder/ }));
    await visible(page.locator('ol.results mark').first());
    await visible(page.getByRole('link', { name: 'Next page' }));
    await screen('search-words');

    await page.getByRole('radio', { name: 'Meaning' }).check();
    await page.getByLabel('Catalog').selectOption('python-meaning');
    await page.getByRole('searchbox').fill('turn an object into text');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await visible(page.locator('ol.results h2 a').first());
    await screen('search-meaning');

    await page.getByRole('radio', { name: 'Pictures' }).check();
    await page.getByLabel('Catalog').selectOption('python');
    await page.getByRole('searchbox').fill('turtle graphics');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await visible(page.getByText(/one result per picture kept/));
    await visible(page.getByRole('status').getByText(/by pictures/));
    await visible(page.locator('.gallery img').first(), 20_000);
    await screen('search-pictures');
    // "like this" asks for the pictures like one: this catalog kept no vectors, and the page says how to get them.
    await page
      .getByRole('link', { name: /^Pictures like this one/ })
      .first()
      .click();
    await visible(page.getByText(/holds no picture vectors.*replay --layers vector/));
  });

  it('opens why for an off-site url refused before any request, and the stored text of a saved one', async () => {
    await page.getByRole('link', { name: 'Urls', exact: true }).first().click();
    // The search screen has a Catalog field too: choose only once the urls screen is the one shown.
    await page.getByRole('heading', { name: 'Urls', level: 1 }).waitFor(WAIT);
    await page.getByLabel('Catalog').selectOption('python');
    await page.getByLabel('State').selectOption('rejected');
    const offsite = page.locator('table.urls a', { hasNotText: new URL(corpus.url).host }).first();
    await visible(offsite);
    await screen('urls');
    await offsite.click();
    await contains(page.getByTestId('explanation'), /domain/);
    await visible(page.getByText('REJECTED_OUT_OF_SCOPE'));
    await screen('url-why');

    await page.goto(`${base}/#/search?q=json%20dumps&catalog=python`);
    await page.getByRole('link', { name: /^Stored copy and why: json/ }).click();
    await page.getByRole('button', { name: 'Stored text' }).click();
    await contains(page.getByLabel('Stored text'), 'json.dumps');
    await page.getByRole('button', { name: 'Markdown', exact: true }).click();
    await contains(page.getByLabel('Markdown'), /^---\ntitle: "json[^\n]*\n[\s\S]*\n---\n[\s\S]*json\.dumps/);
    const [download] = await Promise.all([
      page.waitForEvent('download', WAIT),
      page.getByRole('button', { name: 'Download Markdown' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('json.md');
    await page.getByRole('button', { name: 'Stored html (rendered, sandboxed)' }).click();
    await expect.poll(() => page.locator('iframe.stored').getAttribute('sandbox'), POLL).toBe('');
    await screen('url-stored');
  });

  it('shows the system: node, stores, settings', async () => {
    await page.getByRole('link', { name: 'System', exact: true }).click();
    await contains(page.getByRole('table', { name: 'Full-text index per catalog' }), 'python');
    await contains(page.getByRole('table', { name: 'Settings' }), 'tokenTtl');
    await screen('system');
  });

  it('deletes a version: a dry run first, then the confirmed delete', async () => {
    await page.goto(`${base}/#/monitor/python-meaning`);
    await page.getByRole('button', { name: 'Delete v0…' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete version 0?' });
    await contains(dialog, /Dry run: this would remove .* from index/);
    await screen('monitor-delete');
    const versions = await fetchVersions(page, base);
    expect(versions).toHaveLength(1);
    await dialog.getByRole('button', { name: 'Confirm: delete version 0' }).click();
    await visible(page.getByText('Version 0 deleted.'));
    await visible(page.getByText(/No version holds data yet/));
    expect(await fetchVersions(page, base)).toHaveLength(0);
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await visible(page.getByRole('button', { name: 'Sign in' }));
    await visible(page.getByText('You are signed out.'));
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('a support user sees no write controls', async () => {
    await signIn(page, 'helpdesk');
    await visible(page.getByText('support (read only)'));
    await visible(page.getByRole('link', { name: 'Monitor' }).first());
    await expect.poll(() => page.getByRole('link', { name: 'New catalog' }).count(), POLL).toBe(0);
    await expect.poll(() => page.getByRole('button', { name: /Crawl|Update|Stop/ }).count(), POLL).toBe(0);
    await expect.poll(() => page.getByRole('link', { name: 'Edit' }).count(), POLL).toBe(0);
    await screen('catalogs-support');
    await page.goto(`${base}/#/monitor/python`);
    await visible(page.getByRole('table', { name: /The versions of python/ }));
    expect(await page.locator('main').getByRole('button').count()).toBe(0);
    await screen('monitor-support');
    // And the API refuses the write anyway.
    const status = await page.evaluate(async () => {
      const s = JSON.parse(sessionStorage.getItem('greenfinger.session') ?? '{}') as { token: string };
      return (await fetch('/v2/crawl/python', { method: 'POST', headers: { authorization: `Bearer ${s.token}` } }))
        .status;
    });
    expect(status).toBe(403);
  });

  it('every screen fits 360 px: no sideways scrolling, still no serious violation', async () => {
    const narrow = await browser.newContext({ viewport: { width: 360, height: 740 }, isMobile: true });
    narrow.setDefaultTimeout(15_000);
    const p = await narrow.newPage();
    watchErrors(p, errors);
    try {
      await p.goto(`${base}/`);
      await p.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
      await screen('sign-in', p);
      await signIn(p, 'admin');
      for (const [name, hash] of [
        ['catalogs', '#/catalogs'],
        ['monitor', '#/monitor/python'],
        ['search-words', '#/search?q=json%20dumps&catalog=python'],
        ['urls', '#/urls?catalog=python&status=failed'],
        ['system', '#/system'],
        ['catalog-form', '#/catalogs/new'],
      ] as const) {
        await p.goto(`${base}/${hash}`);
        await p.locator('h1').first().waitFor(WAIT);
        await screen(name, p);
        const wide = await p.evaluate(() => document.documentElement.scrollWidth);
        expect(wide, `${name} at 360 px`).toBeLessThanOrEqual(360);
      }
    } finally {
      await narrow.close();
    }
  });
});

async function fetchVersions(page: Page, base: string): Promise<unknown[]> {
  return page.evaluate(async (b) => {
    const s = JSON.parse(sessionStorage.getItem('greenfinger.session') ?? '{}') as { token: string };
    const r = await fetch(`${b}/v2/crawl/python-meaning/versions`, { headers: { authorization: `Bearer ${s.token}` } });
    return ((await r.json()) as { data: unknown[] }).data;
  }, base);
}
