import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeDirs, makeDirsAsync } from '../../src/storage/make-dirs.js';
import { createTempDir, type TempDir } from '../support/tmp.js';

/** Issue 30, item 2: Node's recursive mkdirSync never returns under /proc; makeDirs fails once, naming the level. */
describe('makeDirs: mkdir -p one level at a time', () => {
  let tmp: TempDir | undefined;
  afterEach(() => {
    tmp?.remove();
    tmp = undefined;
  });

  it('a data root under /proc cannot be created: ENOENT naming the first level that cannot be made, no hang', async () => {
    expect(() => makeDirs('/proc/x/y/system')).toThrow(expect.objectContaining({ code: 'ENOENT', path: '/proc/x' }));
    await expect(makeDirsAsync('/proc/x/y/system')).rejects.toMatchObject({ code: 'ENOENT', path: '/proc/x' });
  });

  it('creates every missing level, and leaves an existing directory as it is', async () => {
    tmp = createTempDir('gf-make-dirs-');
    const deep = join(tmp.path, 'a', 'b', 'c');
    makeDirs(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    makeDirs(deep);
    const deeper = join(tmp.path, 'a', 'x', 'y', 'z');
    await makeDirsAsync(deeper);
    expect(statSync(deeper).isDirectory()).toBe(true);
    await makeDirsAsync(deeper);
  });

  it('a file in the way is EEXIST (or ENOTDIR below it), as mkdir -p says', async () => {
    tmp = createTempDir('gf-make-dirs-');
    const file = join(tmp.path, 'file');
    writeFileSync(file, 'x');
    expect(() => makeDirs(file)).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => makeDirs(join(file, 'below'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
    await expect(makeDirsAsync(join(file, 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
