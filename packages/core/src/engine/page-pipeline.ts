import { errorMessage, StageError } from '../errors.js';
import type { LeasedEntry } from '../frontier/frontier.js';
import { Outcome } from '../outcomes.js';
import {
  ABANDON,
  type Completion,
  type Done,
  done,
  HEADER_NOFOLLOW,
  NEXT,
  PageInProgress,
  type PipelineContext,
  type Stage,
  type StageVerdict,
} from './page.js';
import { canonical } from './stages/canonical.js';
import { children } from './stages/child-paths.js';
import { dedup, unmodified } from './stages/dedup.js';
import { postImport, preImport } from './stages/document-consumers.js';
import { documentFilters } from './stages/document-filters.js';
import { extract } from './stages/extract.js';
import { fetch } from './stages/fetch.js';
import { head } from './stages/head-pass.js';
import { images } from './stages/images.js';
import { importDocument, postImportLinks } from './stages/import.js';
import { knownUrl } from './stages/known-url.js';
import { links } from './stages/links.js';
import { markup, render } from './stages/markup.js';
import { metadata } from './stages/metadata.js';
import { output } from './stages/output.js';
import { recrawl } from './stages/recrawl.js';
import { reserve } from './stages/reserve.js';
import { noindex, robots } from './stages/robots-meta.js';
import { siteMarkdown } from './stages/site-markdown.js';
import { status } from './stages/status.js';
import { trap } from './stages/trap.js';

/**
 * The document pipeline (seed 002), in the order of "the life of one page" (seed 000): each stage is a file of
 * `stages/`, named as in the table of docs/design.md. The metadata stages and the document filters are listed twice:
 * each runs once, at the first place it has what it judges (the HEAD or the GET; a page's text or a document's).
 */
export const DOCUMENT_PIPELINE: readonly Stage[] = [
  knownUrl,
  recrawl,
  trap,
  head,
  metadata,
  fetch,
  status,
  metadata,
  children,
  markup,
  render,
  extract,
  canonical,
  robots,
  links,
  noindex,
  documentFilters,
  preImport,
  importDocument,
  documentFilters,
  // The committer pipeline (seed 002), up to the output channels.
  unmodified,
  dedup,
  reserve,
  images,
  siteMarkdown,
  postImport,
  postImportLinks,
  output,
];

/** Told of each stage's verdict as the url goes through (test-url reports them). */
export interface PipelineObserver {
  onVerdict(stage: Stage, verdict: StageVerdict, page: PageInProgress): void;
}

/**
 * Handle one url: run the stages until one decides. Returns what to commit, or undefined when the url is abandoned
 * (the page limit was reached while it waited: its lease stays). A stage that throws — extraction, dedup, pictures,
 * the file layer, a bug — ends this url alone as REJECTED_ERROR, detail the stage, its message as the example.
 */
export async function handlePage(
  entry: LeasedEntry,
  ctx: PipelineContext,
  observer?: PipelineObserver,
): Promise<Completion | undefined> {
  if (ctx.limit.reached()) {
    ctx.counters.abandon();
    return undefined;
  }
  const page = new PageInProgress(entry);
  for (const stage of DOCUMENT_PIPELINE) {
    let verdict: StageVerdict;
    try {
      verdict = await stage.run(page, ctx);
    } catch (err) {
      await undo(page, ctx);
      // The output chain names the layer that failed (the file layer: StageError 'file').
      const detail = stage === output && err instanceof StageError ? err.stage : stage.name;
      ctx.log.warn({ err, url: entry.url, stage: detail }, 'page failed; the crawl goes on');
      const failed = done(Outcome.REJECTED_ERROR, detail, failureLine(err));
      observer?.onVerdict(stage, failed, page);
      return end(page, failed);
    }
    observer?.onVerdict(stage, verdict, page);
    if (verdict === ABANDON) {
      ctx.counters.abandon();
      return undefined;
    }
    if (verdict !== NEXT) {
      ctx.queue.traps.handled(entry.url, verdict.outcome);
      return end(page, verdict);
    }
  }
  throw new Error(`no stage decided the outcome of ${entry.url}`);
}

/** The message, and its cause's when it adds something ("file: cannot write …: ENOSPC: no space left …"). */
function failureLine(err: unknown): string {
  const own = errorMessage(err);
  const cause = err instanceof Error && err.cause !== undefined ? errorMessage(err.cause) : '';
  return (cause && !own.includes(cause) ? `${own}: ${cause}` : own).replace(/\s*\n\s*/g, ' ');
}

function end(page: PageInProgress, verdict: Done): Completion {
  const why = page.headerNofollow ? [verdict.why, HEADER_NOFOLLOW].filter(Boolean).join('; ') : verdict.why;
  return Object.assign(page.completion, { outcome: verdict.outcome, detail: verdict.detail, why });
}

/** A failed page leaves nothing behind that other pages would trip over. */
async function undo(page: PageInProgress, ctx: PipelineContext): Promise<void> {
  const d = ctx.deps;
  if (page.reserved) ctx.limit.release();
  if (page.owesWrites) ctx.owed.forget(page.resourceId);
  ctx.images.forget(page.images);
  if (page.textRecorded && page.extracted) {
    // Otherwise a later page with the same text would be a "duplicate" of a page that was never saved.
    await d.contentDedup.forget(d.catalog.id, d.version, page.content.text).catch((err: unknown) => {
      ctx.log.warn({ err, url: page.entry.url }, 'content fingerprint of a failed page not forgotten');
    });
  }
}
