import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';

const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));

/** The built CLI as a process; resolves with its exit code and output (bounded: 60 s). */
function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  if (!existsSync(bin)) throw new Error(`${bin} is missing: build the shell first (npx tsc -b packages/shell)`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { ...process.env, GF_WEBHOOK_ALLOW_PRIVATE: '', GF_WEBHOOK_SECRET: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      err += b.toString();
    });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/**
 * Alerts on the command line (issue 27 item 6), as processes: `--webhook` refused in one line for a private address
 * unless GF_WEBHOOK_ALLOW_PRIVATE=true, shown by `catalog show`; `alert add|list|remove`; a `crawl` process that
 * exits only once its signed POST was delivered.
 */
describe('greenfinger alert / --webhook', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let data: string;
  const got: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  let hook: string;

  beforeAll(async () => {
    site = await startFixtureSite();
    tmp = createTempDir('gf-alert-cli-');
    data = join(tmp.path, 'data');
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise<void>((r) => receiver.close(() => r()));
    await site?.close();
    tmp?.remove();
  });

  it('refuses a webhook on 10.0.0.0/8 in one line (exit 2) unless GF_WEBHOOK_ALLOW_PRIVATE=true', async () => {
    const args = ['catalog', 'create', '--url', site.startUrl, '--name', 'fx', '--data', data];
    const refused = await cli([...args, '--webhook', 'http://10.1.2.3/hook']);
    expect(refused.code).toBe(2);
    expect(refused.out).toBe('');
    const lines = refused.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('--webhook');
    expect(lines[0]).toContain('"http://10.1.2.3/hook" is a private (10.0.0.0/8) address, refused (SSRF)');
    expect(lines[0]).toContain('GF_WEBHOOK_ALLOW_PRIVATE=true');

    const bad = await cli([...args, '--webhook', 'ftp://example.com/hook']);
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toContain('a webhook is an http or https url');

    const allowed = await cli([...args, '--webhook', 'http://10.1.2.3/hook'], { GF_WEBHOOK_ALLOW_PRIVATE: 'true' });
    expect(allowed.code).toBe(0);
    const shown = await cli(['catalog', 'show', '--name', 'fx', '--data', data]);
    expect(shown.out).toMatch(/^ {2}webhooks http:\/\/10\.1\.2\.3\/hook /m);
  }, 60_000);

  it('alert add, list and remove', async () => {
    const added = await cli([
      'alert',
      'add',
      '--name',
      'fx',
      'fixture',
      '--label',
      'fx-words',
      '--json',
      '--data',
      data,
    ]);
    expect(added.code).toBe(0);
    const row = JSON.parse(added.out) as { id: string; name: string; mode: string };
    expect(row).toMatchObject({ name: 'fx-words', mode: 'words' });
    const listed = await cli(['alert', 'list', '--name', 'fx', '--data', data]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(row.id);
    expect(listed.out).toContain('never');
    expect(listed.out).toContain('webhook http://10.1.2.3/hook: nothing sent yet');
    const badMode = await cli(['alert', 'add', '--name', 'fx', 'x', '--mode', 'fuzzy', '--data', data]);
    expect(badMode.code).toBe(2);
    expect(badMode.err).toContain('--mode takes words, meaning, hybrid, got "fuzzy"');
    // By id, no catalog named: found in whichever catalog holds it.
    expect((await cli(['alert', 'remove', row.id, '--data', data])).code).toBe(0);
    const nowhere = await cli(['alert', 'remove', row.id, '--data', data]);
    expect(nowhere.code).not.toBe(0);
    expect(nowhere.err).toContain(`no catalog has an alert "${row.id}"`);
    const gone = await cli(['alert', 'remove', row.id, '--name', 'fx', '--data', data]);
    expect(gone.code).not.toBe(0);
    expect(gone.err.trim().split('\n')).toHaveLength(1);
    expect(gone.err).toContain(`"fx" has no alert "${row.id}"`);
  }, 60_000);

  it('a crawl process POSTs its change set, signed, before it exits; alert list shows the delivery', async () => {
    const env = { GF_WEBHOOK_ALLOW_PRIVATE: 'true', GF_WEBHOOK_SECRET: 'cli-secret' };
    const url = site.url('/about.html');
    const crawl = await cli(
      [
        'crawl',
        '--url',
        url,
        '--name',
        'hooked',
        '--max-pages',
        '2',
        '--interval',
        '0',
        '--outputs',
        'file+index',
        '--webhook',
        hook,
        '--data',
        data,
      ],
      env,
    );
    expect(crawl.code).toBe(0);
    expect(got).toHaveLength(1);
    const post = got[0] as { headers: IncomingHttpHeaders; body: string };
    const expected = `sha256=${createHmac('sha256', 'cli-secret').update(post.body).digest('hex')}`;
    expect(post.headers['x-greenfinger-signature']).toBe(expected);
    expect(JSON.parse(post.body)).toMatchObject({ event: 'changes', catalog: { name: 'hooked' }, action: 'crawl' });
    const listed = await cli(['alert', 'list', '--name', 'hooked', '--json', '--data', data]);
    const listing = JSON.parse(listed.out) as { webhooks: Array<{ url: string; lastDelivery: { status: string } }> };
    expect(listing.webhooks).toEqual([
      { url: hook, lastDelivery: expect.objectContaining({ status: 'delivered', attempts: 1, httpStatus: 204 }) },
    ]);
  }, 60_000);
});
