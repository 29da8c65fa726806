import { fork } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CrawlerError, DataLayout, LevelFrontier, type LevelFrontierOptions, MemoryFrontier } from '@greenfinger/core';
import { ClassicLevel } from 'classic-level';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeFrontierContract, type FrontierHarness } from './frontier-contract.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = resolve(here, '../../../..');

describeFrontierContract('MemoryFrontier', async () => {
  const frontier = new MemoryFrontier();
  return { open: async () => frontier, dispose: async () => undefined };
});

function levelHarness(options: LevelFrontierOptions = {}): () => Promise<FrontierHarness> {
  return async () => {
    const root = await mkdtemp(join(tmpdir(), 'gf-frontier-'));
    const dir = new DataLayout(root).frontierDir('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 1);
    return {
      open: () => LevelFrontier.open(dir, options),
      reopen: () => LevelFrontier.open(dir, options),
      dispose: () => rm(root, { recursive: true, force: true }),
    };
  };
}

describeFrontierContract('LevelFrontier', levelHarness(), { durable: true });
describeFrontierContract(
  'LevelFrontier (readAhead 7, flush at once)',
  levelHarness({ readAhead: 7, flushMs: 0, maxPending: 5 }),
  {
    durable: true,
  },
);

describe('LevelFrontier store', () => {
  let root: string;
  let dir: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'gf-frontier-'));
    dir = new DataLayout(root).frontierDir('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 3);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('lives at system/frontier/{catalogId}/v{n}/', () => {
    expect(dir).toBe(join(root, 'system', 'frontier', '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 'v3'));
  });

  it('survives SIGKILL: puts and flushed acks are kept, unacked leases come back once', async () => {
    const child = fork(join(here, 'frontier-kill-child.ts'), [dir], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const signal = await new Promise<NodeJS.Signals | null>((done, fail) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        fail(new Error('child did not finish within 20 s'));
      }, 20_000);
      child.on('exit', (_code, sig) => {
        clearTimeout(timer);
        done(sig);
      });
    });
    expect(signal).toBe('SIGKILL');
    await using frontier = await LevelFrontier.open(dir);
    expect(await frontier.size()).toBe(700);
    expect(await frontier.recover()).toBe(100);
    expect(await frontier.size()).toBe(800);
    expect(await frontier.put({ url: 'https://example.com/p/999', depth: 1 })).toBe(false);
    expect(await frontier.put({ url: 'https://example.com/p/0', depth: 1 })).toBe(true);
    const got: string[] = [];
    for (let next = await frontier.poll(); next && got.length < 2000; next = await frontier.poll()) got.push(next.url);
    expect(got).toHaveLength(801);
    expect(got.slice(0, 800)).toEqual(Array.from({ length: 800 }, (_, i) => `https://example.com/p/${i + 200}`));
    expect(got[800]).toBe('https://example.com/p/0');
  });

  it('a second open of the same store is a CONFLICT naming the directory', async () => {
    await using first = await LevelFrontier.open(dir);
    await first.put({ url: 'https://example.com/', depth: 0 });
    const err = await LevelFrontier.open(dir).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CrawlerError);
    expect(err).toMatchObject({ code: 'CONFLICT' });
    expect((err as CrawlerError).message).toContain(dir);
    expect((err as CrawlerError).message).toContain('another greenfinger process holds it');
  });

  it('a corrupt store is CORRUPT, naming the directory and the fix', async () => {
    const frontier = await LevelFrontier.open(dir);
    await frontier.put({ url: 'https://example.com/', depth: 0 });
    await frontier.close();
    await writeFile(join(dir, 'CURRENT'), 'garbage');
    const err = await LevelFrontier.open(dir).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CORRUPT' });
    expect((err as CrawlerError).message).toContain(dir);
    expect((err as CrawlerError).fix).toContain(`delete ${dir}`);
  });

  it('keeps the queue under f:, leases under i:, urls under u: and counters under m:', async () => {
    const frontier = await LevelFrontier.open(dir);
    await frontier.putAll([
      { url: 'https://example.com/a', depth: 0 },
      { url: 'https://example.com/b', depth: 1, priority: 2 },
      { url: 'https://example.com/c', depth: 1 },
    ]);
    const a = await frontier.poll();
    const c = await frontier.poll();
    if (!a || !c) throw new Error('expected two entries');
    await frontier.ack(a);
    await frontier.close();
    const db = new ClassicLevel<string, string>(dir);
    const keys: string[] = [];
    for await (const key of db.keys()) keys.push(key);
    await db.close();
    expect(keys.filter((k) => k.startsWith('f:'))).toHaveLength(1);
    expect(keys.filter((k) => k.startsWith('i:'))).toEqual([`i:${c.leaseKey}`]);
    expect(keys.filter((k) => k.startsWith('u:')).sort()).toEqual(
      ['u:=https://example.com/a', 'u:=https://example.com/b', 'u:=https://example.com/c'].sort(),
    );
    expect(keys).toContain('m:');
  });
});
