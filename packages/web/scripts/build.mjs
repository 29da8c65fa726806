// Build the page into dist/: one minified ES module (esbuild) beside index.html and style.css. No server at run time:
// `greenfinger serve` serves these files as they are. Prints the sizes (raw and gzip) so a growing bundle is seen.
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(here, 'dist');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(here, 'src/main.tsx')],
  outfile: join(out, 'app.js'),
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  legalComments: 'none',
  logLevel: 'warning',
});
for (const f of ['index.html', 'style.css', 'favicon.svg']) copyFileSync(join(here, 'src', f), join(out, f));

const sizes = ['app.js', 'style.css', 'index.html'].map((f) => {
  const bytes = readFileSync(join(out, f));
  return `${f} ${(statSync(join(out, f)).size / 1024).toFixed(1)} KiB (gzip ${(gzipSync(bytes).length / 1024).toFixed(1)} KiB)`;
});
console.log(`web: built ${out}: ${sizes.join(', ')}`);
