import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compiledTwin } from '../../src/worker-entry.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

let tmp: TempDir;
beforeEach(() => {
  tmp = createTempDir('gf-twin-');
});
afterEach(() => tmp.remove());

/** A package laid out like core's: src/…/x.ts compiled to dist/…/x.js, the build info in dist/.tsbuildinfo. */
function aPackage(name = 'pkg'): { root: string; caller: string; touch: (path: string, secondsAgo: number) => void } {
  const root = join(tmp.path, name);
  for (const dir of ['src/content', 'dist/content']) mkdirSync(join(root, dir), { recursive: true });
  for (const f of ['src/content/pool.ts', 'src/content/worker.ts', 'src/other.ts']) writeFileSync(join(root, f), '');
  for (const f of ['dist/content/pool.js', 'dist/content/worker.js', 'dist/.tsbuildinfo'])
    writeFileSync(join(root, f), '');
  const touch = (path: string, secondsAgo: number) => {
    const t = Date.now() / 1000 - secondsAgo;
    utimesSync(join(root, path), t, t);
  };
  for (const f of ['src/content/pool.ts', 'src/content/worker.ts', 'src/other.ts']) touch(f, 100);
  touch('dist/.tsbuildinfo', 50);
  return { root, caller: pathToFileURL(join(root, 'src/content/pool.ts')).href, touch };
}

describe('compiledTwin: a worker started from sources runs its compiled module when the build is current', () => {
  it('answers dist/…/x.js when the build info is newer than every source file', () => {
    const { root, caller } = aPackage();
    expect(compiledTwin(caller, './worker')).toBe(join(root, 'dist/content/worker.js'));
  });

  it('answers nothing when any source file changed after the build (tsx runs the sources)', () => {
    const { caller, touch } = aPackage();
    touch('src/other.ts', 10);
    expect(compiledTwin(caller, './worker')).toBeUndefined();
  });

  it('answers nothing without the compiled module or the build info, or outside a src folder', () => {
    const p = aPackage();
    expect(compiledTwin(p.caller, './missing')).toBeUndefined();
    const q = aPackage('other');
    writeFileSync(join(q.root, 'dist/.tsbuildinfo'), '');
    expect(compiledTwin(q.caller, './worker')).toBe(join(q.root, 'dist/content/worker.js'));
    expect(compiledTwin(pathToFileURL(join(q.root, 'lib/pool.ts')).href, './worker')).toBeUndefined();
  });
});
