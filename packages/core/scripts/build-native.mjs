// Builds packages/core/native/gf_fts.c (Greenfinger's SQLite extension: the phrase-pair tokenizer of the full-text
// index) into native/build/gf_fts.so, against the SQLite headers better-sqlite3 ships (the same SQLite it runs).
// Part of `pnpm run build`; skipped when the library is newer than its source. Needs a C compiler (cc, as for
// better-sqlite3 built from source). Without one the build goes on: indexes are written without phrase pairs and
// the command says so (src/index/fts-extension.ts).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, '..', 'native', 'gf_fts.c');
const out = join(here, '..', 'native', 'build', 'gf_fts.so');
const headers = join(dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')), 'deps', 'sqlite3');

if (existsSync(out) && statSync(out).mtimeMs >= statSync(source).mtimeMs && process.argv[2] !== '--force')
  process.exit(0);
mkdirSync(dirname(out), { recursive: true });
const cc = process.env.CC || 'cc';
try {
  execFileSync(cc, ['-O2', '-fPIC', '-shared', '-Wall', '-Werror', '-I', headers, '-o', out, source], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  console.log(`built ${out}`);
} catch (err) {
  console.warn(
    `gf_fts: could not build ${out} with ${cc} (${err.message.split('\n')[0]}); the full-text index will be written ` +
      'without phrase pairs. Install a C compiler (Debian: apt-get install gcc) and run the build again.',
  );
}
