import { join } from 'node:path';
import { Greenfinger } from '@greenfinger/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureSite, startFixtureSite } from '../../core/test/support/fixture-site.js';
import { createTempDir, type TempDir } from '../../core/test/support/tmp.js';
import { EXIT, type Io } from '../src/io.js';
import { main } from '../src/program.js';

/** main(argv, io) in this process, its output captured. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: Io = {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    tty: false,
  };
  const code = await main(['node', 'greenfinger', ...args], io);
  return { code, out, err };
}

/**
 * What `greenfinger search --like` says when it cannot answer, each in one line with its fix, on a real crawl of
 * three pages of the fixture site without the vector layer (no model to load: the answers themselves are tested in
 * core's picture-search.test.ts and the API's search-modes.test.ts, whose crawls embed the pictures).
 */
describe('greenfinger search --like: one line for what it cannot answer', () => {
  let site: FixtureSite;
  let tmp: TempDir;
  let data: string;
  let picture = '';

  beforeAll(async () => {
    site = await startFixtureSite();
    tmp = createTempDir('gf-shell-like-');
    data = join(tmp.path, 'data');
    const gf = await Greenfinger.open({ settings: { dataStore: data, workers: 0 } });
    try {
      const report = await gf.crawler.crawl({
        url: `${site.origin}/`,
        startUrl: `${site.origin}/article-1.html`,
        settings: { intervalMs: 0, maxPages: 3, sitemap: false, outputs: ['file', 'index'] },
      });
      expect(report.ending.published).toBe(true);
    } finally {
      await gf.close();
    }
    const found = await cli(['search', 'cherry tomatoes vine', '--mode', 'pictures', '--json', '--data', data]);
    expect(found.code, found.err).toBe(EXIT.ok);
    picture = (JSON.parse(found.out).results[0] as { id: string }).id;
  }, 60_000);
  afterAll(async () => {
    await site?.close();
    tmp?.remove();
  });

  const oneLine = async (args: string[]): Promise<string> => {
    const r = await cli(['search', ...args, '--data', data]);
    expect(r.code).not.toBe(EXIT.ok);
    expect(r.out).toBe('');
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0] as string;
  };

  it('names an unknown picture id and how to find ids', async () => {
    expect(await oneLine(['--mode', 'pictures', '--like', 'nope'])).toMatch(
      /^greenfinger: like: no picture "nope" in .* — .*greenfinger search "<words>" --mode pictures --json$/,
    );
  });

  it('says the version holds no picture vectors, and how to write them', async () => {
    expect(await oneLine(['--like', picture])).toMatch(
      /holds no picture vectors.* — add "vector" to the catalog's outputs, then write them: greenfinger replay --layers vector$/,
    );
  });

  it('refuses --like with words, or with another mode, and a search of nothing', async () => {
    expect(await oneLine(['tomatoes', '--like', picture])).toMatch(/q and like together/);
    expect(await oneLine(['--mode', 'words', '--like', picture])).toMatch(/not mode words/);
    expect(await oneLine([])).toMatch(/^greenfinger: search needs a query, or --like with a picture id/);
  });
});
