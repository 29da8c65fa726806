import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDir, type TempDir } from '../packages/core/test/support/tmp.js';

/**
 * Issue 27: a run's change set is journaled (engine/change-recorder.ts), so a `merge` killed -9 in the middle and
 * then resumed records the whole run's change set — the pages changed before the kill as well as after — not only
 * what the resume did itself. The CLI as processes, a site on loopback that logs its requests.
 */

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'packages/shell/dist/bin.js');
const PAGES = 30;

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

/** Resolves once `check` holds, polling every 100 ms; fails naming `what` after `ms`. */
async function until(
  what: string,
  check: () => Promise<boolean> | boolean,
  ms: number,
  detail = () => '',
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms: ${what}\n${detail()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** 30 pages (`/` links /p1.html … /p29.html) whose text `edit` changes; `hold` keeps one path's answer waiting. */
function startSite() {
  const requests: string[] = [];
  const held: ServerResponse[] = [];
  const edited = new Map<number, string>();
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
      const links = Array.from({ length: PAGES - 1 }, (_, i) => `<li><a href="/p${i + 1}.html">Hive ${i + 1}</a></li>`);
      return page(res, 'Apiary', `<p>Every hive of the apiary, one page each.</p><ul>${links.join('')}</ul>`);
    }
    const m = /^\/p(\d+)\.html$/.exec(path);
    const n = Number(m?.[1]);
    if (m && n < PAGES) {
      const text =
        edited.get(n) ?? `Hive ${n} keeps ${['carniolan', 'buckfast', 'italian'][n % 3]} bees, calm and steady.`;
      return page(res, `Hive ${n}`, `<p>${text}</p><p>The hive stands in row ${n % 5} of the orchard.</p>`);
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  return new Promise<{
    origin: string;
    requests: string[];
    edit(n: number, text: string): void;
    hold(path: string | undefined): void;
    release(): void;
    close(): Promise<void>;
  }>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      resolve({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        requests,
        edit: (n, text) => edited.set(n, text),
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

describe('changes: a merge killed -9 and resumed records the whole change set', () => {
  let tmp: TempDir;
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    tmp = createTempDir('gf-e2e-changes-kill-');
    site = await startSite();
  });

  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  it('the pages changed before the kill and after it are all in the change log of the resumed run', async () => {
    const data = join(tmp.path, 'data');
    const name = 'apiary';
    const first = await cli(['crawl', '--url', site.origin, '--name', name, '--interval', '0', '--data', data]);
    expect(first.code, first.stderr).toBe(0);

    // /p20.html is edited too: the resume fetches it (after the kill), the others the killed merge fetched.
    const edits = [2, 3, 20, 27, 28];
    for (const n of edits) site.edit(n, `Hive ${n} swarmed in May and was requeened with a young queen.`);
    // The merge revisits every page; /p20.html waits, so the process dies in the middle of the run.
    site.hold('/p20.html');
    const before = site.requests.length;
    const merge = start(['merge', '--name', name, '--interval', '0', '--data', data]);
    await until(
      'the merge reached /p20.html',
      () => site.requests.slice(before).includes('/p20.html'),
      60_000,
      merge.stderr,
    );
    // Wait until the edited /p2.html is recorded as saved by this merge (its rows committed), then kill.
    const url = `${site.origin}p2.html`;
    await until(
      'the merge committed /p2.html',
      async () => {
        const why = await cli(['why', url, '--catalog', name, '--json', '--data', data]);
        if (why.code !== 0) return false;
        // The ledger row counts its second change (saved by the crawl, changed by this merge).
        return why.stdout.includes('"changeCount":2');
      },
      60_000,
      merge.stderr,
    );
    merge.child.kill('SIGKILL');
    await merge.exited;
    site.release();

    const resumedFrom = site.requests.length;
    const resume = await cli(['resume', '--name', name, '--data', data]);
    expect(resume.code, resume.stderr).toBe(0);
    // The resume did not fetch /p2.html again: its change comes from the killed run's journal.
    const resumed = site.requests.slice(resumedFrom);
    expect(resumed).not.toContain('/p2.html');
    expect(resumed).toContain('/p20.html');

    const changes = await cli(['changes', '--name', name, '--json', '--data', data]);
    expect(changes.code, changes.stderr).toBe(0);
    const set = JSON.parse(changes.stdout) as {
      runs: Array<{ action: string }>;
      added: string[];
      changed: Array<{ url: string; diff: string }>;
      removed: string[];
    };
    expect(set.runs.map((r) => r.action)).toEqual(['resume']);
    expect(set.changed.map((c) => c.url).sort()).toEqual(edits.map((n) => `${site.origin}p${n}.html`).sort());
    expect(set.changed.find((c) => c.url === url)?.diff).toContain('+ Hive 2 swarmed in May');
    expect(set.added).toEqual([]);
    expect(set.removed).toEqual([]);
  }, 150_000);
});
