import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of every package's `src`, read with TypeScript's own parser. An arrow is a value import: a static
 * `import` or `export … from` that is not `import type` / `export type` and does not name only `type` members. Dynamic
 * `import()` is left out (it loads on use, so it cannot make a load-order circle). A circle through value imports
 * fails the test, naming its files; so does any import, even type-only, from `core/src/compose/` into
 * `core/src/services/` (the composition point sits below the front door), and a source file over 500 lines.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const packagesDir = join(root, 'packages');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The file a relative specifier names ('./x.js' -> x.ts, x.tsx or x/index.ts), or undefined. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier.replace(/\.(m?js|jsx)$/, ''));
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

interface Edge {
  target: string;
  typeOnly: boolean;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // import './side-effect.js'
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings) return false;
  if (ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  if (!clause || !ts.isNamedExports(clause)) return false;
  return clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

function edgesOf(file: string): Edge[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const edges: Edge[] = [];
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    let typeOnly = false;
    if (ts.isImportDeclaration(statement)) {
      specifier = statement.moduleSpecifier;
      typeOnly = isTypeOnlyImport(statement);
    } else if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      specifier = statement.moduleSpecifier;
      typeOnly = isTypeOnlyExport(statement);
    }
    if (!specifier || !ts.isStringLiteral(specifier)) continue;
    const target = resolveSpecifier(file, specifier.text);
    if (target) edges.push({ target, typeOnly });
  }
  return edges;
}

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan's algorithm. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const files = readdirSync(packagesDir)
  .map((p) => join(packagesDir, p, 'src'))
  .filter((dir) => existsSync(dir))
  .flatMap(sourceFiles);
const edges = new Map(files.map((f) => [f, edgesOf(f)]));
const name = (f: string) => relative(root, f);

describe('import graph of packages/*/src', () => {
  it('reads every package', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files.some((f) => f.endsWith(join('core', 'src', 'index.ts')))).toBe(true);
  });

  it('has no circle through value imports', () => {
    const graph = new Map<string, string[]>();
    for (const [file, out] of edges)
      graph.set(
        file,
        out.filter((e) => !e.typeOnly).map((e) => e.target),
      );
    const found = circles(graph).map((c) => c.map(name));
    expect(found, `import circles:\n${found.map((c) => `  ${c.join(' -> ')}`).join('\n')}`).toEqual([]);
  });

  it('has no circle in core, type-only imports included', () => {
    const core = join(packagesDir, 'core', 'src');
    const graph = new Map<string, string[]>();
    for (const [file, out] of edges) {
      if (file.startsWith(core))
        graph.set(
          file,
          out.map((e) => e.target).filter((t) => t.startsWith(core)),
        );
    }
    const found = circles(graph).map((c) => c.map(name));
    expect(found, `import circles:\n${found.map((c) => `  ${c.join(' -> ')}`).join('\n')}`).toEqual([]);
  });

  it('keeps every source file at 500 lines or fewer (generated files aside)', () => {
    const long = files
      .filter((f) => !/\.gen\.tsx?$/.test(f))
      .map((f) => [name(f), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 500)
      .map(([f, lines]) => `${f}: ${lines} lines`);
    expect(long, 'split these by job (docs/developer-guide.md)').toEqual([]);
  });

  it('keeps core compose/ below services/', () => {
    const compose = join(packagesDir, 'core', 'src', 'compose');
    const services = join(packagesDir, 'core', 'src', 'services');
    const upward = [...edges]
      .filter(([file]) => file.startsWith(compose))
      .flatMap(([file, out]) =>
        out.filter((e) => e.target.startsWith(services)).map((e) => `${name(file)} -> ${name(e.target)}`),
      );
    expect(upward).toEqual([]);
  });
});
