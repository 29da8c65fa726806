import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as core from '@greenfinger/core';
import * as internal from '@greenfinger/core/internal';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

/** The names of `@greenfinger/core` an example or a doc imports (its code blocks), by file. */
function importedNames(text: string): string[] {
  const source = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const st of source.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    if (st.moduleSpecifier.text !== '@greenfinger/core') continue;
    const bindings = st.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const e of bindings.elements) if (!e.isTypeOnly) names.push((e.propertyName ?? e.name).text);
    }
  }
  return names;
}

describe('the public entry, @greenfinger/core', () => {
  it('has what a library user needs', () => {
    for (const name of ['Greenfinger', 'CrawlerError', 'ConfigError', 'loadSettings', 'resolveCatalogSettings']) {
      expect(core, name).toHaveProperty(name);
    }
    for (const name of ['acceptorRegistry', 'contentExtractorRegistry', 'documentParserRegistry', 'registries']) {
      expect(core, name).toHaveProperty(name);
    }
    for (const name of ['LocalBlobStore', 'LevelFrontier', 'MemoryFrontier', 'createRecordDatabase', 'Outcome']) {
      expect(core, name).toHaveProperty(name);
    }
  });

  it('keeps the internals out; the internal entry has them', () => {
    for (const name of [
      'ComponentFactory',
      'LocalAdminWriter',
      'eraseUrl',
      'OffThreadBlobStore',
      'keys',
      'assembleCrawl',
    ]) {
      expect(core, name).not.toHaveProperty(name);
      expect(internal, name).toHaveProperty(name);
    }
    for (const name of Object.keys(core)) expect(internal, name).toHaveProperty(name);
  });

  it('serves every value the examples and the docs import from it', () => {
    const files = [
      ...readdirSync(join(root, 'examples'))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(root, 'examples', f)),
      join(root, 'README.md'),
      join(root, 'docs/developer-guide.md'),
    ];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const code = file.endsWith('.md')
        ? [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
        : text;
      for (const name of importedNames(code)) expect(core, `${file}: ${name}`).toHaveProperty(name);
    }
  });
});
