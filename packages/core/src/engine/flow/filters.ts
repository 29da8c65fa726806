import type { DocumentFilter, MetadataFilter } from '../../config.js';
import { cachedRegex as regex } from './regex-cache.js';

/** Why a filter refused a document (the example of its REJECTED_FILTER key). */
export interface FilterRefusal {
  why: string;
}

interface Judged {
  readonly onMatch: 'exclude' | 'include';
}

/**
 * The seed's filter rule: a document an `exclude` filter matches is refused; when any `include` filter is given, a
 * document no include filter matches is refused too.
 */
function judge<F extends Judged>(
  filters: readonly F[],
  matches: (f: F) => boolean,
  describe: (f: F) => string,
): FilterRefusal | undefined {
  let includes = 0;
  let included = false;
  for (const f of filters) {
    if (f.onMatch === 'include') {
      includes++;
      if (!included && matches(f)) included = true;
    } else if (matches(f)) {
      return { why: `excluded by ${describe(f)}` };
    }
  }
  if (includes > 0 && !included) return { why: `matches none of the ${includes} include filters` };
  return undefined;
}

function metadataMatches(f: MetadataFilter, headers: Readonly<Record<string, string>>): boolean {
  const value = headers[f.header.toLowerCase()];
  if (value === undefined) return false;
  if (f.match !== undefined && !regex(f.match).test(value)) return false;
  if (f.min !== undefined || f.max !== undefined) {
    const n = Number(value);
    if (!Number.isFinite(n)) return false;
    if (f.min !== undefined && n < f.min) return false;
    if (f.max !== undefined && n > f.max) return false;
  }
  if (f.before !== undefined || f.after !== undefined) {
    const t = Date.parse(value);
    if (Number.isNaN(t)) return false;
    if (f.before !== undefined && !(t < Date.parse(f.before))) return false;
    if (f.after !== undefined && !(t > Date.parse(f.after))) return false;
  }
  return true;
}

function describeMetadata(f: MetadataFilter): string {
  const parts = [
    f.match !== undefined ? `~ /${f.match}/` : '',
    f.min !== undefined ? `>= ${f.min}` : '',
    f.max !== undefined ? `<= ${f.max}` : '',
    f.before !== undefined ? `before ${f.before}` : '',
    f.after !== undefined ? `after ${f.after}` : '',
  ].filter(Boolean);
  return `metadata filter ${f.header.toLowerCase()} ${parts.join(' ')}`.trim();
}

/** Metadata filters on a document's headers (lower-case names): undefined = keep it. */
export function refuseByMetadata(
  filters: readonly MetadataFilter[],
  headers: Readonly<Record<string, string>>,
): FilterRefusal | undefined {
  if (filters.length === 0) return undefined;
  return judge(filters, (f) => metadataMatches(f, headers), describeMetadata);
}

/** What a document filter can look at. */
export interface FilteredDocument {
  url: string;
  title: string;
  text: string;
  contentType: string;
}

/** Document filters on what a document holds once it is read: undefined = keep it. */
export function refuseByContent(filters: readonly DocumentFilter[], doc: FilteredDocument): FilterRefusal | undefined {
  if (filters.length === 0) return undefined;
  return judge(
    filters,
    (f) => regex(f.match).test(doc[f.field]),
    (f) => `document filter ${f.field} ~ /${f.match}/`,
  );
}
