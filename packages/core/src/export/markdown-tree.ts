import { existsSync, readdirSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CrawlerError } from '../errors.js';
import { makeDirs } from '../storage/make-dirs.js';
import type { ExportSource } from './export-source.js';
import type { ExportTally } from './export-tally.js';
import type { ZipWriter } from './zip-writer.js';

/** Where the tree's files go: a folder on disk, or the entries of a zip (over HTTP). */
export interface TreeOut {
  file(path: string, content: string): Promise<void>;
}

/** A tree written under `dir`, which must be absent or empty (an export never overwrites files). */
export function folderTree(dir: string): TreeOut {
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new CrawlerError('BAD_INPUT', `--out ${dir} is a folder that is not empty`, {
      fix: 'give --out a new or empty folder for the markdown format',
    });
  }
  const made = new Set<string>();
  return {
    file: async (path, content) => {
      const full = join(dir, path);
      const parent = dirname(full);
      if (!made.has(parent)) {
        makeDirs(parent);
        made.add(parent);
      }
      await writeFile(full, content);
    },
  };
}

/** A tree written as the entries of a zip. */
export function zipTree(zip: ZipWriter): TreeOut {
  return { file: async (path, content) => void (await zip.add(path, content)) };
}

/**
 * `--format markdown`: one `.md` file per saved page (front matter, then the article), in folders that mirror the
 * site: `<host>[_<port>]/<path>`, `.html` replaced by `.md`, a path ending in `/` as `index.md`, a query kept in the
 * name. Two urls that would share a file (`/a.html` and `/a.htm`) keep the first; the next gets its id's first 8
 * characters in its name.
 */
export async function writeMarkdownTree(source: ExportSource, out: TreeOut, tally: ExportTally): Promise<void> {
  const used = new Set<string>();
  for await (const row of source.rows()) {
    if ((await source.text(row)) === undefined) {
      tally.missing(row.url);
      continue;
    }
    let path = markdownFilePath(row.url);
    if (used.has(path)) path = path.replace(/\.md$/, `-${row.id.slice(0, 8)}.md`);
    used.add(path);
    await out.file(path, await source.markdownFile(row));
    tally.page();
  }
}

/** The tree path of a page's Markdown: `127.0.0.1_8084/library/json.md` for `http://127.0.0.1:8084/library/json.html`. */
export function markdownFilePath(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${safe(url)}.md`;
  }
  const host = safe(u.port ? `${u.hostname}_${u.port}` : u.hostname);
  const segments = u.pathname.split('/').slice(1).map(decoded).map(safe);
  let last = segments.pop() ?? '';
  if (last === '') last = 'index';
  last = last.replace(/\.(html?|xhtml|php|aspx?|jsp)$/i, '');
  if (u.search) last += `_${safe(decoded(u.search.slice(1)))}`;
  return [host, ...segments.filter((s) => s !== ''), `${last.slice(0, 200)}.md`].join('/');
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A path segment that is safe as a file name: no separators, no control characters, never `.` or `..`. */
function safe(segment: string): string {
  const s = segment.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_');
  return s === '.' || s === '..' ? s.replace(/\./g, '_') : s;
}
