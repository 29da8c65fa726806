import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TempDir extends AsyncDisposable, Disposable {
  readonly path: string;
  /** Remove the directory and everything in it. Idempotent. */
  remove(): void;
}

/** A fresh directory under the OS temp dir, removed on dispose. Use with `using dir = createTempDir()`. */
export function createTempDir(prefix = 'gf-test-', base = tmpdir()): TempDir {
  const path = mkdtempSync(join(base, prefix));
  const remove = () => rmSync(path, { recursive: true, force: true, maxRetries: 3 });
  return {
    path,
    remove,
    [Symbol.dispose]: remove,
    [Symbol.asyncDispose]: async () => remove(),
  };
}
