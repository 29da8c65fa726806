// Write packages/web/src/api-types.gen.ts from the API's own description: the app is built in this process over a
// Greenfinger on a temporary data root, asked for GET /v2/openapi.json with inject() (no port, no server), and the
// answer turned into TypeScript (api-types-gen.mjs), formatted by biome.
//
//   node packages/web/scripts/api-types.mjs           write the file
//   node packages/web/scripts/api-types.mjs --check   exit 1 when the committed file differs
//
// The API is read from its TypeScript sources, so the script runs itself again under tsx when started by plain node.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generate } from './api-types-gen.mjs';

const web = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(web, '../..');
export const GENERATED = join(web, 'src/api-types.gen.ts');

/** The description `GET /v2/openapi.json` answers, from an app built in this process. */
export async function describeApi() {
  const { Greenfinger } = await import('../../core/src/index.ts');
  const { buildApp } = await import('../../api/src/index.ts');
  const dataStore = mkdtempSync(join(tmpdir(), 'gf-api-types-'));
  const gf = await Greenfinger.open({ settings: { dataStore, workers: 0 } });
  try {
    const app = await buildApp(gf, { web: false });
    try {
      const r = await app.inject({ method: 'GET', url: '/v2/openapi.json' });
      if (r.statusCode !== 200) throw new Error(`GET /v2/openapi.json answered ${r.statusCode}`);
      return r.json();
    } finally {
      await app.close();
    }
  } finally {
    await gf.close();
    rmSync(dataStore, { recursive: true, force: true });
  }
}

/** The file's text for a description: generated, then formatted as the repository formats TypeScript. */
export function apiTypesText(openapi) {
  const biome = join(root, 'node_modules/.bin/biome');
  const r = spawnSync(biome, ['format', `--stdin-file-path=${relative(root, GENERATED)}`], {
    cwd: root,
    input: generate(openapi),
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`biome could not format the generated types:\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function main() {
  const text = apiTypesText(await describeApi());
  const name = relative(root, GENERATED);
  if (process.argv.includes('--check')) {
    let now = '';
    try {
      now = readFileSync(GENERATED, 'utf8');
    } catch {
      // missing: stale
    }
    if (now !== text) {
      console.error(`${name} is stale: run node packages/web/scripts/api-types.mjs and commit it`);
      process.exit(1);
    }
    console.log(`${name} is up to date`);
    return;
  }
  writeFileSync(GENERATED, text);
  console.log(`wrote ${name} (${text.split('\n').length} lines)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.env.GF_API_TYPES_TSX) await main();
  else {
    const r = spawnSync(
      process.execPath,
      ['--conditions=@greenfinger/source', '--import', 'tsx', fileURLToPath(import.meta.url), ...process.argv.slice(2)],
      { cwd: root, stdio: 'inherit', env: { ...process.env, GF_API_TYPES_TSX: '1' } },
    );
    process.exit(r.status ?? 1);
  }
}
