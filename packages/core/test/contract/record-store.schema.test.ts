import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { skipPg } from './record-store.contract.js';

const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const script = join(repo, 'scripts', 'schema-generate.mjs');
const dbArgs = skipPg ? ['--db', 'sqlite'] : [];
const scratch = mkdtempSync(join(tmpdir(), 'gf-schema-check-'));

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [script, ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
      },
    );
  });
}

function copySchema(name: string): string {
  const dir = join(scratch, name);
  cpSync(join(repo, 'schema'), dir, { recursive: true });
  return dir;
}

describe('schema-generate --check', () => {
  it('finds the committed SQL equal to what the schema engine generates from schema.prisma', async () => {
    const { code, out } = await run(['--check', ...dbArgs]);
    expect(out).toContain('up to date');
    expect(code).toBe(0);
  });

  it('fails when a committed SQL file was edited by hand', async () => {
    const dir = copySchema('edited');
    const file = join(dir, 'sqlite', '0001_init.sql');
    writeFileSync(file, readFileSync(file, 'utf8').replace('"title" TEXT NOT NULL', '"title" TEXT'));
    const { code, out } = await run(['--check', '--db', 'sqlite'], { GF_SCHEMA_DIR: dir });
    expect(code).toBe(1);
    expect(out).toContain('sqlite/0001_init.sql differs');
  });

  it('fails when schema.prisma changed without a new migration, and --new then adds one', async () => {
    const dir = copySchema('changed');
    const source = join(dir, 'schema.prisma');
    writeFileSync(source, readFileSync(source, 'utf8').replace(/(\n\s+link_density\s+Float)/, '$1\n  lang String?'));
    const check = await run(['--check', '--db', 'sqlite'], { GF_SCHEMA_DIR: dir });
    expect(check.code).toBe(1);
    expect(check.out).toContain('--new');
    const added = await run(['--new', 'add_lang', '--db', 'sqlite'], { GF_SCHEMA_DIR: dir });
    expect(added.code).toBe(0);
    expect(readFileSync(join(dir, 'sqlite', '0010_add_lang.sql'), 'utf8')).toContain(
      'ALTER TABLE "crawler_resource" ADD COLUMN "lang" TEXT;',
    );
    const after = await run(['--check', '--db', 'sqlite'], { GF_SCHEMA_DIR: dir });
    expect(after.code).toBe(0);
  });

  it('keeps a hand-written step and still checks the generated ones', async () => {
    const dir = copySchema('hand');
    cpSync(join(dir, 'history', '0009_alerts.prisma'), join(dir, 'history', '0010_backfill.prisma'));
    const sql = "-- hand-written\nUPDATE crawler_catalog SET running_state = 'none' WHERE running_state = '';\n";
    writeFileSync(join(dir, 'sqlite', '0010_backfill.sql'), sql);
    expect((await run(['--check', '--db', 'sqlite'], { GF_SCHEMA_DIR: dir })).code).toBe(0);
    expect((await run(['--db', 'sqlite'], { GF_SCHEMA_DIR: dir })).code).toBe(0);
    expect(readFileSync(join(dir, 'sqlite', '0010_backfill.sql'), 'utf8')).toBe(sql);
    const init = join(dir, 'sqlite', '0001_init.sql');
    writeFileSync(init, `${readFileSync(init, 'utf8')}-- edited\n`);
    const edited = await run(['--check', '--db', 'sqlite'], { GF_SCHEMA_DIR: dir });
    expect(edited.code).toBe(1);
    expect(edited.out).toContain('0001_init.sql differs');
  });
});
