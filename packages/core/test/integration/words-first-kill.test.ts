import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkText, Greenfinger, type PublishedCatalog, type RunReport } from '@greenfinger/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.js';
import { eventually } from '../support/gated-embedding.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

const modelDir = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const child = fileURLToPath(new URL('../support/vector-phase-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../../../', import.meta.url));
/** The node settings of the killed crawl and of the resume: small chunks, several per page. */
const nodeSettings = { workers: 1, chunkSize: 100, chunkOverlap: 0, maxChunks: 6 };

/**
 * The done-when of issue 18: a kill -9 while vectors are still being written (words already published), then
 * `resume`, completes the vectors with zero requests to the site. The killed crawl runs in a child process whose
 * embedding model lets one batch through and holds the rest.
 */
describe('kill -9 during the vector phase, then resume', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let proc: ChildProcess;
  let atKill: PublishedCatalog;
  let resumed: RunReport;
  let gf: Greenfinger;

  beforeAll(async () => {
    site = await startFixtureSite({ slowDelayMs: 100 });
    tmp = createTempDir('gf-words-first-kill-');
    const data = join(tmp.path, 'data');
    proc = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--conditions',
        '@greenfinger/source',
        child,
        data,
        site.origin,
        JSON.stringify(nodeSettings),
      ],
      { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    proc.stderr?.on('data', (d) => {
      stderr += String(d);
    });
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    const registry = join(data, 'user', 'index', 'catalogs.json');
    atKill = await eventually(async () => {
      if (proc.exitCode !== null) throw new Error(`the child ended: ${stderr.slice(-500)}`);
      const { readFile } = await import('node:fs/promises');
      const list = (JSON.parse(await readFile(registry, 'utf8')) as { catalogs: PublishedCatalog[] }).catalogs;
      const e = list[0];
      return e && e.searchVersion === 0 && (e.embedding?.embedded ?? 0) > 0 ? e : undefined;
    }, 60_000);
    proc.kill('SIGKILL');
    await exited;
    site.clear();
    gf = await Greenfinger.open({ settings: { dataStore: data, modelDir, textModel: 'tiny-e5', ...nodeSettings } });
    resumed = await gf.crawler.crawl({ id: atKill.catalogId, action: 'resume' });
  }, 120_000);

  afterAll(async () => {
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    await gf?.close();
    await site?.close();
    tmp?.remove();
  });

  it('was killed with words published and its vectors incomplete', () => {
    expect(atKill.embedding?.version).toBe(0);
    expect(atKill.embedding?.complete).toBeLessThan(atKill.embedding?.pages ?? 0);
  });

  it('resume made no request to the site at all', () => {
    expect(site.requests).toEqual([]);
    expect(site.other.requests).toEqual([]);
  });

  it('resume wrote every chunk of every page, and published the version complete', async () => {
    expect(resumed.action).toBe('resume');
    expect(resumed.ending).toMatchObject({ reason: 'frontier-drained', published: true });
    expect(resumed.produced.vectored).toBe(resumed.produced.saved);
    expect(resumed.ending.gaps).toBeUndefined();
    expect(resumed.searchable?.completeAfterMs).not.toBeNull();
    const db = await gf.database();
    let chunks = 0;
    for await (const rows of db.resources.iterateResources(atKill.catalogId, 0)) {
      for (const r of rows) {
        const text = (await gf.factory.blobs.getText(r.textPath)) ?? '';
        const want = chunkText(`${r.title}\n\n${text}`.trim(), {
          chunkSize: nodeSettings.chunkSize,
          overlap: nodeSettings.chunkOverlap,
          maxChunks: nodeSettings.maxChunks,
        }).length;
        expect(await (await gf.vectors()).countResource(atKill.catalogId, 0, r.id)).toBe(want);
        chunks += want;
      }
    }
    expect(await (await gf.vectors()).countVersion(atKill.catalogId, 0)).toBe(chunks);
    const e = (await gf.published.list()).find((c) => c.catalogId === atKill.catalogId);
    expect(e?.embedding).toBeUndefined();
    const meaning = await gf.search.search({ q: 'a garden with tomatoes', mode: 'meaning' });
    expect(meaning.embedding).toBeUndefined();
    expect(meaning.results.length).toBeGreaterThan(0);
  });
});
