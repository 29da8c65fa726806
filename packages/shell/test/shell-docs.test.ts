import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { commandsIn } from '../src/command-table.js';
import { promptHelp, splitWords } from '../src/repl.js';
import { shellDocs } from '../src/shell-docs.js';

const docs = fileURLToPath(new URL('../../../docs/shell.md', import.meta.url));

describe('the prompt and its documentation', () => {
  it('docs/shell.md is generated from the command table (regenerate it as shell-docs.ts says)', () => {
    expect(readFileSync(docs, 'utf8')).toBe(shellDocs());
  });

  it('covers every prompt command, each with an example, and help <command> prints its section', () => {
    const text = readFileSync(docs, 'utf8');
    const names = commandsIn('prompt').map((s) => s.prompt);
    for (const name of [
      'catalog-list',
      'catalog-save',
      'catalog-cats',
      'crawler-report',
      'crawl',
      'status',
      'test-url',
      'search',
      'index-info',
      'vector-info',
      'why',
    ])
      expect(names).toContain(name);
    for (const spec of commandsIn('prompt')) {
      expect(text).toContain(promptHelp(spec).trimEnd());
      expect(promptHelp(spec)).toMatch(/\nExamples:\n {2}\S/);
    }
  });

  it('splits a line into words as a shell does', () => {
    expect(splitWords(`search json dumps --size 3`)).toEqual(['search', 'json', 'dumps', '--size', '3']);
    expect(splitWords(`catalog-save --json '{"url":"http://x/"}'`)).toEqual([
      'catalog-save',
      '--json',
      '{"url":"http://x/"}',
    ]);
    expect(splitWords(`why "a b" c\\ d ''`)).toEqual(['why', 'a b', 'c d', '']);
    expect(() => splitWords(`search "open`)).toThrow(/quote is not closed/);
  });
});
