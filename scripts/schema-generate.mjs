#!/usr/bin/env node
/**
 * Generates the SQL migrations in schema/<database>/ from schema/schema.prisma with Prisma's schema engine
 * (@prisma/schema-engine-wasm, driven by hand: the prisma CLI needs a native engine that cannot be downloaded here).
 *
 * Every migration NNNN_name has a snapshot schema/history/NNNN_name.prisma of the schema it leads to, and its SQL is
 * the engine's diff from the previous snapshot (or from nothing) to that snapshot, for each database.
 *
 *   node scripts/schema-generate.mjs              rewrite every migration's SQL from the snapshots
 *                                                 (the first run creates 0001_init from schema.prisma)
 *   node scripts/schema-generate.mjs --new NAME   add the next migration: diff last snapshot → schema.prisma
 *   node scripts/schema-generate.mjs --check      exit 1 unless the committed SQL equals what the engine generates
 *                                                 and schema.prisma has no change without a migration
 *   --db sqlite|postgresql                        only that database (repeatable)
 *
 * A step the engine cannot express (moving data) is a migration whose snapshot equals the previous one and whose
 * SQL files start with the line `-- hand-written`: they are kept as they are and not compared.
 *
 * GF_SCHEMA_DIR points it at another schema folder (tests use a copy).
 *
 * The PostgreSQL dialect needs a server to connect to (the engine asks for its version at connect, nothing is
 * written): GF_SCHEMA_PG_URL, else GF_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SCHEMA_DIR = resolve(process.env.GF_SCHEMA_DIR || join(ROOT, 'schema'));
const HISTORY_DIR = join(SCHEMA_DIR, 'history');
const SOURCE = join(SCHEMA_DIR, 'schema.prisma');
const NAME_RE = /^\d{4}_[a-z0-9_]+$/;
const FILTERS = { externalTables: [], externalEnums: [] };
const EMPTY_MARK = 'This is an empty migration.';
const HAND_WRITTEN = '-- hand-written';
/**
 * Removed from the PostgreSQL script: it needs CREATE on the database even when the schema exists, which an
 * application role often lacks; the tables go to the connection's current schema (normally public).
 */
const PUBLIC_SCHEMA = /^-- CreateSchema\nCREATE SCHEMA IF NOT EXISTS "public";\n\n/m;

const requireFromCore = createRequire(join(ROOT, 'packages', 'core', 'package.json'));
const load = (id) => import(pathToFileURL(requireFromCore.resolve(id)).href);

/** The schema with its provider swapped and the PostgreSQL native types (@db.*) removed. */
function forSqlite(schema) {
  return schema.replace(/provider\s*=\s*"postgresql"/, 'provider = "sqlite"').replace(/ @db\.\w+(\([^)]*\))?/g, '');
}

const DATABASES = [
  { dir: 'postgresql', transform: (s) => s, adapter: postgresAdapter },
  { dir: 'sqlite', transform: forSqlite, adapter: sqliteAdapter },
];

async function sqliteAdapter() {
  const { PrismaBetterSqlite3 } = await load('@prisma/adapter-better-sqlite3');
  return { factory: new PrismaBetterSqlite3({ url: ':memory:' }), close: async () => {} };
}

async function postgresAdapter() {
  const url =
    process.env.GF_SCHEMA_PG_URL || process.env.GF_TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const { default: pg } = await load('pg');
  const { PrismaPg } = await load('@prisma/adapter-pg');
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5000 });
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end();
    throw new Error(
      `cannot reach PostgreSQL at ${url.replace(/:[^:@/]*@/, ':***@')} (${err.message}); the engine needs a server ` +
        'for the PostgreSQL dialect: start one or set GF_SCHEMA_PG_URL, or pass --db sqlite',
    );
  }
  return { factory: new PrismaPg(pool), close: () => pool.end() };
}

let wasm;
async function loadWasm() {
  if (wasm) return wasm;
  const bgUrl = pathToFileURL(requireFromCore.resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
  const bg = await import(bgUrl.href);
  const module = new WebAssembly.Module(readFileSync(new URL('./schema_engine_bg.wasm', bgUrl)));
  const instance = new WebAssembly.Instance(module, { './schema_engine_bg.js': bg });
  bg.__wbg_set_wasm(instance.exports);
  instance.exports.__wbindgen_start();
  wasm = bg;
  return bg;
}

/** A schema engine for one database, with `diff(from, to)` returning the SQL script ('' when nothing changes). */
async function openEngine(db, initialSchema) {
  const bg = await loadWasm();
  const { bindMigrationAwareSqlAdapterFactory } = await load('@prisma/driver-adapter-utils');
  const adapter = await db.adapter();
  const content = db.transform(initialSchema);
  let engine;
  try {
    engine = await bg.SchemaEngine.new(
      { datamodels: [['schema.prisma', content]] },
      () => {},
      bindMigrationAwareSqlAdapterFactory(adapter.factory),
    );
  } catch (err) {
    await adapter.close();
    throw err;
  }
  const target = (schema) =>
    schema === null
      ? { tag: 'empty' }
      : { tag: 'schemaDatamodel', files: [{ path: 'schema.prisma', content: db.transform(schema) }] };
  return {
    async diff(from, to) {
      const result = await engine.diff({
        from: target(from),
        to: target(to),
        script: true,
        exitCode: null,
        filters: FILTERS,
      });
      const sql = (result.stdout ?? '').replace(PUBLIC_SCHEMA, '');
      return sql.includes(EMPTY_MARK) ? '' : sql.endsWith('\n') ? sql : `${sql}\n`;
    },
    async close() {
      engine.free?.();
      await adapter.close();
    },
  };
}

function history() {
  if (!existsSync(HISTORY_DIR)) return [];
  return readdirSync(HISTORY_DIR)
    .filter((f) => f.endsWith('.prisma'))
    .map((f) => f.slice(0, -'.prisma'.length))
    .filter((n) => NAME_RE.test(n))
    .sort()
    .map((name) => ({ name, schema: readFileSync(join(HISTORY_DIR, `${name}.prisma`), 'utf8') }));
}

function parseArgs(argv) {
  const args = { mode: 'write', name: undefined, dbs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--check') args.mode = 'check';
    else if (a === '--new') {
      args.mode = 'new';
      args.name = argv[++i];
    } else if (a === '--db') args.dbs.push(argv[++i]);
    else throw new Error(`unknown argument ${a}; use --check, --new NAME or --db sqlite|postgresql`);
  }
  if (args.mode === 'new' && !/^[a-z0-9_]+$/.test(args.name ?? '')) {
    throw new Error('--new needs a name in lower-case letters, digits and underscores, e.g. --new add_resource_lang');
  }
  for (const d of args.dbs) {
    if (!DATABASES.some((db) => db.dir === d)) throw new Error(`--db ${d}: use sqlite or postgresql`);
  }
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const dbs = args.dbs.length ? DATABASES.filter((db) => args.dbs.includes(db.dir)) : DATABASES;
  const source = readFileSync(SOURCE, 'utf8');
  const steps = history();
  const problems = [];

  if (args.mode === 'write' && steps.length === 0) {
    mkdirSync(HISTORY_DIR, { recursive: true });
    writeFileSync(join(HISTORY_DIR, '0001_init.prisma'), source);
    steps.push({ name: '0001_init', schema: source });
  }
  let added;
  if (args.mode === 'new') {
    const number = String(steps.length + 1).padStart(4, '0');
    added = { name: `${number}_${args.name}`, schema: source };
  }

  for (const db of dbs) {
    const engine = await openEngine(db, source);
    try {
      const outDir = join(SCHEMA_DIR, db.dir);
      mkdirSync(outDir, { recursive: true });
      let previous = null;
      for (const step of steps) {
        const sql = await engine.diff(previous, step.schema);
        const file = join(outDir, `${step.name}.sql`);
        const committed = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
        if (committed?.startsWith(HAND_WRITTEN)) {
          if (sql) problems.push(`${db.dir}/${step.name}.sql is hand-written but its snapshot changes the schema`);
        } else if (args.mode === 'write') writeFileSync(file, sql);
        else if (args.mode === 'check') {
          if (committed === undefined)
            problems.push(`${db.dir}/${step.name}.sql is missing; run node scripts/schema-generate.mjs`);
          else if (committed !== sql)
            problems.push(
              `${db.dir}/${step.name}.sql differs from what the engine generates; run node scripts/schema-generate.mjs`,
            );
        }
        previous = step.schema;
      }
      const extra = readdirSync(outDir).filter((f) => f.endsWith('.sql') && !steps.some((s) => `${s.name}.sql` === f));
      for (const f of extra) problems.push(`${db.dir}/${f} has no snapshot in schema/history/`);
      const pending = await engine.diff(previous, source);
      if (args.mode === 'new') {
        if (!pending) problems.push(`${db.dir}: schema.prisma has no change since ${steps.at(-1)?.name ?? 'nothing'}`);
        else writeFileSync(join(outDir, `${added.name}.sql`), pending);
      } else if (pending) {
        problems.push(
          `${db.dir}: schema.prisma changed since the last migration; run node scripts/schema-generate.mjs --new <name>`,
        );
      }
    } finally {
      await engine.close();
    }
  }
  if (args.mode === 'new' && problems.length === 0) writeFileSync(join(HISTORY_DIR, `${added.name}.prisma`), source);

  if (problems.length) {
    for (const p of problems) console.error(`schema-generate: ${p}`);
    process.exitCode = 1;
    return;
  }
  const verb = args.mode === 'check' ? 'up to date' : args.mode === 'new' ? `added ${added.name}` : 'written';
  console.log(
    `schema-generate: ${dbs.map((d) => d.dir).join(', ')} ${verb} (${steps.length + (added ? 1 : 0)} migrations)`,
  );
}

main().catch((err) => {
  console.error(`schema-generate: ${err.message}`);
  process.exitCode = 1;
});
