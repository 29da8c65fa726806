import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const PAGES = 30;

/** A process of the CLI whose output is collected as it comes. */
interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function start(args: string[]): Running {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`pnpm run build\` first`);
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    err += b.toString();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    }),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = start(args);
  const code = await r.exited;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

/** Resolves once `check` holds, polling every 50 ms; fails naming `what` after `ms`. */
async function until(what: string, check: () => boolean, ms: number, detail = () => ''): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}\n${detail()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves with the exit code, or null when the process is still running after `ms` (then it is killed). */
async function exitWithin(r: Running, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => {
    timer = setTimeout(() => resolve('still running'), ms);
  });
  const code = await Promise.race([r.exited, late]);
  clearTimeout(timer);
  if (code === 'still running') r.child.kill('SIGKILL');
  return code;
}

const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/**
 * A site of 30 pages (`/` links /p1.html … /p29.html) that logs each request; `hold` makes requests to one path wait
 * until `release()`, so a run can be caught in the middle without guessing at times.
 */
function startSite() {
  const requests: string[] = [];
  const held: ServerResponse[] = [];
  let hold: string | undefined;
  const page = (res: ServerResponse, title: string, body: string) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!DOCTYPE html><html><head><title>${title}</title></head><body><main>${body}</main></body></html>`);
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.push(path);
    if (path === hold) {
      held.push(res);
      return;
    }
    if (path === '/') {
      const links = Array.from({ length: PAGES - 1 }, (_, i) => `<li><a href="/p${i + 1}.html">Bed ${i + 1}</a></li>`);
      return page(res, 'Allotment beds', `<p>Every bed of the allotment, one page each.</p><ul>${links.join('')}</ul>`);
    }
    const m = /^\/p(\d+)\.html$/.exec(path);
    if (m && Number(m[1]) < PAGES) {
      return page(
        res,
        `Bed ${m[1]}`,
        `<p>Bed ${m[1]} grows ${['leeks', 'beans', 'kale'][Number(m[1]) % 3]} this season.</p>`,
      );
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return new Promise<{
    origin: string;
    requests: string[];
    hold(path: string | undefined): void;
    release(): void;
    close(): Promise<void>;
  }>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        requests,
        hold: (path) => {
          hold = path;
        },
        release: () => {
          hold = undefined;
          for (const res of held.splice(0)) res.destroy();
        },
        close: () =>
          new Promise<void>((done) => {
            for (const res of held.splice(0)) res.destroy();
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    }),
  );
}

describe('watch: catalogs run on their schedules', () => {
  let tmp: TempDir;
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    tmp = createTempDir('gf-e2e-watch-');
    site = await startSite();
  });

  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  it('a 2-second schedule runs twice under watch (merge, each counted from the last end), then SIGTERM stops it within 5 s', async () => {
    const data = join(tmp.path, 'every');
    const first = await cli(['crawl', '--url', site.origin, '--name', 'beds', '--interval', '0', '--data', data]);
    expect(first.code, first.stderr).toBe(0);
    const set = await cli(['catalog', 'update', 'beds', '--schedule', 'every 2s', '--data', data]);
    expect(set.code, set.stderr).toBe(0);
    const shown = await cli(['catalog', 'show', '--name', 'beds', '--data', data]);
    expect(shown.stdout).toMatch(/schedule every 2s/);
    const listed = await cli(['watch', '--list', '--json', '--data', data]);
    const [entry] = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(entry).toMatchObject({ catalog: 'beds', schedule: 'every 2s', running: false });
    expect(Date.parse(String(entry?.nextRunAt)) - Date.parse(String(entry?.lastRunAt))).toBe(2000);

    const watch = start(['watch', '--json', '--data', data]);
    await until('two scheduled runs ended', () => jsonLines(watch.stdout()).length >= 2, 60_000, watch.stderr);
    const runs = jsonLines(watch.stdout());
    for (const run of runs.slice(0, 2)) expect(run).toMatchObject({ catalog: 'beds', action: 'merge', state: 'done' });
    // The second started no sooner than 2 s after the first ended: the schedule's clock is the last run's end.
    expect(Date.parse(String(runs[1]?.startedAt)) - Date.parse(String(runs[0]?.endedAt))).toBeGreaterThanOrEqual(1900);
    watch.child.kill('SIGTERM');
    expect(await exitWithin(watch, 5000)).toBe(0);
    // status says what runs next by itself, and what the last run changed (+added ~changed -removed).
    const status = await cli(['status', '--data', data]);
    expect(status.stdout).toMatch(
      /scheduled \(watch or serve runs them\):\ncatalog +schedule .*last changes\nbeds +every 2s .* \+\d+ ~\d+ -\d+/,
    );
  }, 120_000);

  it('a scheduled run killed -9 in the middle is resumed by the next one, and the version keeps every page', async () => {
    const data = join(tmp.path, 'killed');
    const name = 'beds-killed';
    const first = await cli(['crawl', '--url', site.origin, '--name', name, '--interval', '0', '--data', data]);
    expect(first.code, first.stderr).toBe(0);
    const set = await cli(['catalog', 'update', name, '--schedule', 'every 1s', '--data', data]);
    expect(set.code, set.stderr).toBe(0);

    // The merge revisits every page: /p15.html waits, so the run is caught in the middle when the process dies.
    site.hold('/p15.html');
    const before = site.requests.length;
    const watch = start(['watch', '--json', '--data', data]);
    await until(
      'the scheduled merge reached /p15.html',
      () => site.requests.slice(before).includes('/p15.html'),
      60_000,
      watch.stderr,
    );
    watch.child.kill('SIGKILL');
    await watch.exited;
    site.release();

    const resumedFrom = site.requests.length;
    const next = await cli(['watch', '--once', '--json', '--data', data]);
    expect(next.code, next.stderr).toBe(0);
    const [run] = jsonLines(next.stdout);
    // The pages were unchanged: the resumed merge saves nothing new, and the version it works on keeps serving.
    expect(run, `${JSON.stringify(run)}\n${next.stderr}`).toMatchObject({
      catalog: name,
      action: 'resume',
      state: 'done',
      reason: 'frontier-drained',
    });
    // It fetched what the killed run had not finished, /p15.html among them, not the whole site again.
    const resumed = site.requests.slice(resumedFrom).filter((p) => p === '/' || p.endsWith('.html'));
    expect(resumed).toContain('/p15.html');
    expect(resumed.length).toBeLessThan(PAGES);
    const versions = await cli(['versions', '--name', name, '--json', '--data', data]);
    expect(versions.code, versions.stderr).toBe(0);
    const served = (JSON.parse(versions.stdout) as Array<{ serving: boolean; saved: number }>).find((v) => v.serving);
    expect(served?.saved).toBe(PAGES);
    // Counted from the resume's end, an hourly schedule is not due: --once starts nothing.
    expect((await cli(['catalog', 'update', name, '--schedule', 'every 1h', '--data', data])).code).toBe(0);
    const again = await cli(['watch', '--once', '--json', '--data', data]);
    expect(again.code).toBe(0);
    expect(jsonLines(again.stdout)).toEqual([]);
  }, 120_000);

  it('a bad schedule is refused in one line naming the flag and the forms accepted', async () => {
    const data = join(tmp.path, 'bad');
    const r = await cli(['crawl', '--url', site.origin, '--schedule', 'every tuesday', '--data', data]);
    expect(r.code).toBe(2);
    const lines = r.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/--schedule: .*every tuesday.*every 6h.*cron/);
    const none = await cli(['watch', '--once', '--data', join(tmp.path, 'empty')]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no catalog has a schedule.*--schedule "every 6h"/);
  }, 60_000);
});
