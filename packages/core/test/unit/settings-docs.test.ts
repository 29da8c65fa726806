import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { processEnv, settingsEnv, TOOL_ENV_PREFIXES, unknownEnv } from '../../src/config.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * GF_* variables the docs may name that are in no settings table, each with who reads it: test-only variables whose
 * prefix is not one of TOOL_ENV_PREFIXES.
 */
const ALLOWED: Readonly<Record<string, string>> = {
  GF_SCREENSHOTS_DIR: 'e2e/page-journey.test.ts: where the page journey writes its screenshots',
};

const known = new Set<string>([...Object.values(settingsEnv), ...Object.values(processEnv)]);

/** Whether the table has `name`; a family written `GF_RENDER_*` in the docs (read as `GF_RENDER_`) when some member is. */
function inTable(name: string): boolean {
  if (TOOL_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) return true;
  if (name in ALLOWED) return true;
  if (name.endsWith('_')) return [...known].some((k) => k.startsWith(name));
  return known.has(name);
}

const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('every GF_* variable the docs name is a setting', () => {
  it.each(docs)('%s', (doc) => {
    const text = readFileSync(join(root, doc), 'utf8');
    const named = [...new Set(text.match(/\bGF_[A-Z0-9_]+/g) ?? [])];
    expect(named.filter((name) => !inTable(name))).toEqual([]);
  });

  it('a variable another package reads is in the table: GF_CLUSTER_POLITENESS draws no unknown-variable warning', () => {
    expect(unknownEnv({ GF_CLUSTER_POLITENESS: 'cluster', GF_CLUSTER_POLITNESS: 'cluster' })).toEqual([
      'GF_CLUSTER_POLITNESS',
    ]);
  });

  it('the allow-list names only variables the table lacks', () => {
    for (const name of Object.keys(ALLOWED)) expect(known.has(name), name).toBe(false);
  });

  it('.env.example lists every variable of the process table but the FTS extension file (commented out)', () => {
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    for (const name of Object.values(processEnv)) expect(example, name).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
  });
});
