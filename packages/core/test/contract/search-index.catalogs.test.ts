import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CrawlerError, PublishedCatalogs } from '@greenfinger/core/internal';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const A = '0190a0b0-0000-7000-8000-00000000000a';
const B = '0190a0b0-0000-7000-8000-00000000000b';

describe('PublishedCatalogs (user/index/catalogs.json)', () => {
  let root: string;
  let registry: PublishedCatalogs;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'gf-catalogs-'));
    registry = new PublishedCatalogs(join(root, 'user', 'index'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('is empty before anything is published', async () => {
    expect(await registry.list()).toEqual([]);
    expect(await registry.resolve('docs')).toBeNull();
    expect(await registry.scopes()).toEqual([]);
  });

  it('publishes, replaces by id, resolves by id or name and lists by name', async () => {
    await registry.publish({ catalogId: B, name: 'zeta', url: 'http://127.0.0.1/z', searchVersion: 0, versions: [0] });
    await registry.publish({
      catalogId: A,
      name: 'Docs',
      url: 'http://127.0.0.1/d',
      searchVersion: 1,
      versions: [1, 0, 1],
    });
    await registry.publish({
      catalogId: A,
      name: 'Docs',
      url: 'http://127.0.0.1/d',
      searchVersion: 2,
      versions: [0, 1, 2],
    });
    const list = await registry.list();
    expect(list.map((c) => [c.name, c.searchVersion])).toEqual([
      ['Docs', 2],
      ['zeta', 0],
    ]);
    expect(list[0]?.versions).toEqual([0, 1, 2]);
    expect((await registry.resolve(A))?.name).toBe('Docs');
    expect((await registry.resolve('docs'))?.catalogId).toBe(A);
    expect(await registry.resolve('nope')).toBeNull();
  });

  it('gives search its scopes: only published versions, all catalogs or the ones named', async () => {
    await registry.publish({ catalogId: A, name: 'docs', url: 'u', searchVersion: 3, versions: [2, 3] });
    await registry.publish({ catalogId: B, name: 'fresh', url: 'u', searchVersion: -1, versions: [] });
    expect(await registry.scopes()).toEqual([{ catalogId: A, version: 3 }]);
    expect(await registry.scopes(['fresh'])).toEqual([]);
    expect(await registry.scopes(['docs', 'missing'])).toEqual([{ catalogId: A, version: 3 }]);
  });

  it('writes atomically, survives concurrent publishes and is read by a second instance', async () => {
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        registry.publish({ catalogId: `cat-${i}`, name: `c${i}`, url: 'u', searchVersion: i, versions: [i] }),
      ),
    );
    const other = new PublishedCatalogs(join(root, 'user', 'index'));
    expect((await other.list()).length).toBe(10);
    expect(readdirSync(join(root, 'user', 'index'))).toEqual(['catalogs.json']);
    expect(JSON.parse(readFileSync(registry.file, 'utf8')).format).toBe(1);
    expect(await other.remove('cat-3')).toBe(true);
    expect(await other.remove('cat-3')).toBe(false);
    expect((await registry.list()).length).toBe(9);
  });

  it('rejects a bad record and reports a damaged file with the fix', async () => {
    await expect(
      registry.publish({ catalogId: A, name: 'x', url: 'u', searchVersion: 1.5, versions: [] }),
    ).rejects.toBeInstanceOf(CrawlerError);
    await registry.publish({ catalogId: A, name: 'x', url: 'u', searchVersion: 1, versions: [1] });
    writeFileSync(registry.file, '{"catalogs": nope');
    const err = await registry.list().catch((e: unknown) => e);
    expect((err as CrawlerError).code).toBe('CORRUPT');
    expect((err as CrawlerError).fix).toContain('publish');
  });

  it('keeps the file it read, and reads it again once it changed (another instance, or an edit in place)', async () => {
    await registry.publish({ catalogId: A, name: 'docs', url: 'u', searchVersion: 1, versions: [1] });
    // An hour old: old enough to be kept by a reader (a file changed within the last second is read each time).
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(registry.file, hourAgo, hourAgo);
    const reader = new PublishedCatalogs(join(root, 'user', 'index'));
    expect((await reader.list())[0]?.searchVersion).toBe(1);
    expect((await reader.list())[0]?.searchVersion).toBe(1);
    await registry.publish({ catalogId: A, name: 'docs', url: 'u', searchVersion: 2, versions: [1, 2] });
    expect((await reader.list())[0]?.searchVersion).toBe(2);
    // The same size written in place and its times set back: the change time still tells.
    utimesSync(registry.file, hourAgo, hourAgo);
    expect((await reader.list())[0]?.searchVersion).toBe(2);
    writeFileSync(
      registry.file,
      readFileSync(registry.file, 'utf8').replace('"searchVersion": 2', '"searchVersion": 3'),
    );
    utimesSync(registry.file, hourAgo, hourAgo);
    expect((await reader.list())[0]?.searchVersion).toBe(3);
    rmSync(registry.file);
    expect(await reader.list()).toEqual([]);
  });
});
