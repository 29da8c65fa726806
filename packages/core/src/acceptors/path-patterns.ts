import { ConfigError } from '../errors.js';
import { Outcome } from '../outcomes.js';
import { isFileUrl } from '../url/file-url.js';
import { normalizePercentEncoding } from '../url/normalize.js';
import type { AcceptorFactory } from './acceptor.js';
import { tryParseUrl } from './catalog-scope.js';
import { ACCEPT, refuse } from './verdict.js';

/** A compiled include/exclude pattern. */
export interface PathPattern {
  readonly source: string;
  /** true: matched against the whole url; false: against path + query. */
  readonly wholeUrl: boolean;
  readonly regex: RegExp;
}

function escapeRegExp(ch: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(ch) ? `\\${ch}` : ch;
}

/**
 * Compiles a glob once to a RegExp matching the whole subject:
 * `*` = any run of characters within one path segment, `**` = anything (including `/`), `**\/` = zero or more
 * whole segments; every other character is literal (`?` too, since the query is part of the subject).
 * A pattern starting with `http` or `file:` is matched against the whole normalised url. A pattern starting with `/` is
 * matched against path + query from the root (in a catalog of a folder: from the catalog's folder, see
 * {@link pathPatterns}); any other pattern may match at any depth (like `.gitignore`: `*.pdf` = `**\/*.pdf`).
 * Non-ASCII characters are percent-encoded as in normalised urls.
 */
export function compilePathPattern(pattern: string): PathPattern {
  const source = pattern.trim();
  const wholeUrl = /^(?:https?|file):/i.test(source);
  let glob = wholeUrl ? source : normalizePercentEncoding(source.replace(/[^\x00-\x7F]+/gu, encodeURIComponent));
  if (!wholeUrl && !glob.startsWith('/') && !glob.startsWith('**')) glob = `**/${glob}`;
  let re = '';
  for (let i = 0; i < glob.length; ) {
    if (glob.startsWith('**/', i)) {
      re += '(?:.*/)?';
      i += 3;
    } else if (glob.startsWith('**', i)) {
      re += '.*';
      i += 2;
    } else if (glob[i] === '*') {
      re += '[^/]*';
      i += 1;
    } else {
      re += escapeRegExp(glob[i] as string);
      i += 1;
    }
  }
  return { source, wholeUrl, regex: new RegExp(`^${re}$`) };
}

function compileAll(patterns: readonly string[], field: string): PathPattern[] {
  return patterns.map((p) => {
    if (p.trim() === '')
      throw new ConfigError(field, 'contains an empty pattern', 'remove it or give a glob such as /docs/**');
    return compilePathPattern(p);
  });
}

function matches(p: PathPattern, url: string, pathAndQuery: string): boolean {
  return p.regex.test(p.wholeUrl ? url : pathAndQuery);
}

/**
 * The folder a catalog of a folder (a `file:` url) covers, as a url path without its trailing slash
 * (`file:///srv/docs/` → `/srv/docs`; a catalog of one file: its folder); undefined for a web catalog.
 */
function catalogFolderPath(catalogUrl: string): string | undefined {
  if (!isFileUrl(catalogUrl)) return undefined;
  const path = tryParseUrl(catalogUrl)?.pathname ?? '/';
  return path.slice(0, path.lastIndexOf('/'));
}

/**
 * catalog.settings.include / exclude globs (see compilePathPattern). A url matching any exclude pattern is
 * refused; when include patterns are given a url must match at least one. Refuses with REJECTED_FILTER.
 *
 * In a catalog of a folder (a `file:` url) the path a pattern sees starts at the catalog's folder (`/archive/**`
 * is the folder's `archive/`, wherever the folder is on the disk), and a folder needs to match no include pattern
 * (`--include "*.md"` keeps the markdown files of every subfolder), while an excluded folder is never listed.
 */
export const pathPatterns: AcceptorFactory = (ctx) => {
  const name = 'path-patterns';
  const include = compileAll(ctx.catalog.settings.include, '--include');
  const exclude = compileAll(ctx.catalog.settings.exclude, '--exclude');
  const folder = catalogFolderPath(ctx.catalog.url);
  return {
    name,
    check(candidate) {
      if (include.length === 0 && exclude.length === 0) return ACCEPT;
      const url = tryParseUrl(candidate.url);
      let pathAndQuery = url === undefined ? candidate.url : url.pathname + url.search;
      if (folder !== undefined && pathAndQuery.startsWith(`${folder}/`))
        pathAndQuery = pathAndQuery.slice(folder.length);
      for (const p of exclude) {
        if (matches(p, candidate.url, pathAndQuery)) {
          return refuse(name, Outcome.REJECTED_FILTER, `matches exclude pattern ${p.source}`);
        }
      }
      const listing = folder !== undefined && pathAndQuery.endsWith('/');
      if (include.length > 0 && !listing && !include.some((p) => matches(p, candidate.url, pathAndQuery))) {
        return refuse(name, Outcome.REJECTED_FILTER, 'matches no include pattern');
      }
      return ACCEPT;
    },
  };
};
