import {
  type CrawlProgress,
  type EmbeddingNotice,
  type EmbeddingProgress,
  orphansLine,
  type PictureSearchHit,
  type RunReport,
  type SearchResponse,
} from '@greenfinger/core/internal';

const n = (v: number): string => v.toLocaleString('en-US');

/** `embedding 312 of 526 pages (120 complete), 16.4 chunks/s`, and `(fetch done)` once only vectors are left. */
export function embeddingProgress(e: EmbeddingProgress): string {
  return (
    `embedding ${n(e.embedded)} of ${n(e.pages)} pages (${n(e.complete)} complete), ${e.chunksPerSecond.toFixed(1)} chunks/s` +
    (e.phase === 'vectors' ? ' (fetch done)' : '')
  );
}

/** The live progress line: saved, dispatched, pages/s and where the drops went. */
export function formatProgress(p: CrawlProgress): string {
  const c = p.counters;
  const drops = [
    c.filtered && `filtered ${n(c.filtered)}`,
    c.alreadySeen && `known ${n(c.alreadySeen)}`,
    c.duplicateContent && `duplicate ${n(c.duplicateContent)}`,
    c.unreachable && `unreachable ${n(c.unreachable)}`,
    c.failures && `failed ${n(c.failures)}`,
    c.redirected && `redirected ${n(c.redirected)}`,
  ].filter(Boolean);
  const secs = Math.round(c.elapsedMs / 1000);
  const embedded = p.embedding ? '' : c.vectored ? ` · embedded ${n(c.vectored)}` : '';
  return (
    `saved ${n(c.saved)} · images ${n(c.images)}${embedded} · dispatched ${n(c.dispatched)} · handled ${n(c.handled)} · queued ${n(p.queued)} · ` +
    `${p.pagesPerSecond.toFixed(1)} pages/s · ${secs}s` +
    (p.embedding ? ` · ${embeddingProgress(p.embedding)}` : '') +
    (drops.length ? ` · ${drops.join(', ')}` : '')
  );
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

/**
 * When the version became searchable: `searchable by words after 9.8 s, by meaning after 41.2 s (every page),
 * complete after 372.0 s`; undefined when the report says nothing of it.
 */
export function searchableLine(r: RunReport): string | undefined {
  const t = r.searchable;
  if (!t) return undefined;
  const parts: string[] = [];
  if (t.wordsAfterMs !== null) parts.push(`by words after ${secs(t.wordsAfterMs)}`);
  if (t.meaningAfterMs !== null) parts.push(`by meaning after ${secs(t.meaningAfterMs)} (every page)`);
  else if (t.wordsAfterMs !== null && r.embedding) parts.push('by meaning: not every page yet');
  if (t.completeAfterMs !== null) parts.push(`complete after ${secs(t.completeAfterMs)}`);
  else if (t.wordsAfterMs !== null && r.embedding) parts.push('vectors incomplete: resume writes the rest');
  return parts.length > 0 ? `searchable ${parts.join(', ')}` : undefined;
}

/** Where the filtered urls went, by acceptor. */
function rejectedBreakdown(r: RunReport): string {
  return Object.entries(r.rejected)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k.replace(/^REJECTED_/, '').toLowerCase()} ${n(v)}`)
    .join(', ');
}

export function formatSummary(r: RunReport): string {
  const u = r.urls;
  const words = !r.ending.published && r.searchable?.wordsAfterMs != null;
  const lines = [
    `${r.ending.published ? 'Published' : words ? 'Published for words search (vectors incomplete)' : 'Not published'}: catalog "${r.catalog}" version ${r.version} — saved ${n(r.produced.saved)} pages, ${n(r.produced.images)} images in ${(r.elapsedMs / 1000).toFixed(1)} s`,
    `urls: dispatched ${n(u.dispatched)} = handled ${n(u.handled)} + outstanding ${n(u.outstanding)}; known ${n(u.alreadySeen)}, filtered ${n(u.filtered)}, duplicate ${n(u.duplicateContent)}, unreachable ${n(u.unreachable)}, failed ${n(u.failures)}, redirected ${n(u.redirected)}`,
  ];
  const breakdown = rejectedBreakdown(r);
  if (breakdown) lines.push(`drops: ${breakdown}`);
  const pictures = Object.entries(r.pictures?.rejected ?? {});
  if (pictures.length > 0) {
    lines.push(
      `pictures refused: ${pictures.map(([key, count]) => `${key.replace(/^REJECTED_/, '')} ${n(count)}`).join(', ')}`,
    );
  }
  if (r.content?.charsetFallbacks) {
    lines.push(
      `charsets: ${n(r.content.charsetFallbacks)} pages were not valid in their declared charset and were decoded with a fallback (utf-8 or windows-1252)`,
    );
  }
  lines.push(
    `outputs: ${Object.entries(r.outputs)
      .map(
        ([layer, s]) => `${layer} ${n(s.written)}${s.failed ? ` (failed ${n(s.failed)}: ${s.lastError ?? ''})` : ''}`,
      )
      .join(' · ')}`,
  );
  if (r.embedding) {
    const e = r.embedding;
    const state =
      e.pages !== undefined && e.complete !== undefined && e.complete < e.pages
        ? `; vectors of ${n(e.embedded ?? 0)} of ${n(e.pages)} pages (${n(e.complete)} complete)`
        : '';
    lines.push(`embedding: ${e.model} (${e.dims}-d), ${n(e.chunks)} chunks, ${e.msPerPage} ms/page${state}`);
  }
  const searchable = searchableLine(r);
  if (searchable) lines.push(searchable);
  const orphans = orphansLine(r.orphans);
  if (orphans) lines.push(orphans);
  const c = r.changes;
  if (c && c.added + c.changed + c.removed > 0) {
    const what = `${n(c.added)} added, ${n(c.changed)} changed, ${n(c.removed)} removed`;
    lines.push(`changes: ${what} (greenfinger changes --name "${r.catalog}")`);
  }
  lines.push(`ending: ${r.ending.reason} — ${r.ending.note ?? ''}`);
  if (r.path) lines.push(`report: ${r.path}`);
  if (r.ending.published || words) lines.push(`next: greenfinger search "<words>" --catalog "${r.catalog}"`);
  return `${lines.join('\n')}\n`;
}

const strip = (h: string): string =>
  h
    .replace(/<\/?em>/g, '*')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** What a meaning search over vectors still being written says: how many pages it could answer from. */
export function embeddingNoticeLine(e: EmbeddingNotice): string {
  if (e.embedded < e.pages) {
    return `embedding: ${n(e.embedded)} of ${n(e.pages)} pages — meaning search answered from those so far`;
  }
  return `embedding: every page has a vector, ${n(e.complete)} of ${n(e.pages)} with all of theirs — answers may still improve`;
}

/**
 * The result list. `pictureLine`, when given (the prompt), adds a line under each result that has a picture: its
 * thumbnail or its url (thumbnails.ts).
 */
export function formatResults(
  r: SearchResponse,
  pictureLine?: (h: SearchResponse['results'][number]) => string | undefined,
): string {
  const notice = (r.embedding ? `${embeddingNoticeLine(r.embedding)}\n` : '') + (r.note ? `note: ${r.note}\n` : '');
  if (r.results.length === 0) return `no results (${r.mode})\n${notice}`;
  const lines = r.results.map((h, i) => {
    const hl = h.highlights[0] ? `\n     ${strip(h.highlights[0]).replace(/\s+/g, ' ').slice(0, 200)}` : '';
    const pic = h as Partial<PictureSearchHit>;
    const pages = Array.isArray(pic.pages) ? picturePages(pic.pages, pic.pageCount) : '';
    // A blank query's listing has no score: it says when each page was fetched (newest first).
    const how = h.fetchedAt ? `fetched ${h.fetchedAt}` : `score ${h.score.toFixed(3)}`;
    const shown = pictureLine?.(h);
    return `${String(i + 1).padStart(3)}. ${h.title}\n     ${h.url}  [${h.catalog} v${h.version}, ${how}]${hl}${pages}${shown ? `\n${shown}` : ''}`;
  });
  lines.push(
    `${answeredBy(r)}: ${r.results.length} of ${n(r.total)} in ${r.elapsedMs} ms${r.nextCursor ? ` — next page: --cursor ${r.nextCursor}` : ''}`,
  );
  return `${lines.join('\n')}\n${notice}`;
}

/** The mode that answered, and how: a question, any word, or the rankings fused into a pictures answer. */
function answeredBy(r: SearchResponse): string {
  const how =
    r.match === 'question'
      ? ' (read as a question)'
      : r.match === 'any'
        ? ' (any of the words)'
        : r.rankings && r.rankings.length > 1
          ? ` (${r.rankings.join(' + ')})`
          : '';
  return `${r.mode}${how}`;
}

/** The pages that show a picture of a pictures result: the first one, and how many more. */
function picturePages(pages: Array<{ url: string; title: string }>, count: unknown): string {
  const first = pages[0];
  if (!first) return '';
  const more = (typeof count === 'number' ? count : pages.length) - 1;
  return `\n     on ${first.url}${first.title ? ` (${first.title})` : ''}${more > 0 ? ` and ${more} more` : ''}`;
}

const FIXES: Array<[RegExp, string]> = [
  [
    /could not be fetched|UNREACHABLE|NOTFOUND|BAD_STATUS/,
    'check that the site is up and --url / --start-url are right',
  ],
  [/ROBOTS_TXT/, 'crawl a site that allows it, or pass --no-robots for a site you own'],
  [/KNOWN/, 'it is already in this version: search it, or see `greenfinger help`'],
  [/OUT_OF_SCOPE/, '--start-url must sit under --url'],
  [/REDIRECT/, 'the start url redirects elsewhere: give --url and --start-url the address it redirects to'],
  [/NOT_MARKUP|ASSET/, 'the start url is not an html page: start from one'],
];

/** Why a crawl saved nothing, in one line with the fix: the fate of its start url, from the report's examples. */
export function explainNothingSaved(r: RunReport): string {
  if (r.ending.reason === 'interrupted')
    return 'nothing was saved: the crawl was stopped before any page was kept — run it again to continue';
  const start = Object.entries(r.examples).find(([, example]) => example.startsWith(r.startUrl));
  if (!start)
    return `nothing was saved: every url was dropped (${rejectedBreakdown(r)}) — see the report ${r.path ?? ''}`;
  const [key, example] = start;
  const fix = FIXES.find(([re]) => re.test(example) || re.test(key))?.[1] ?? `see the report ${r.path ?? ''}`;
  return `nothing was saved: the start url was dropped as ${key.replace(/^REJECTED_/, '').toLowerCase()} (${example}) — ${fix}`;
}
