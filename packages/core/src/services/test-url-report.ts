import type { DryWrites } from '../engine/dry-run.js';
import { ABANDON, NEXT, type PageInProgress, type Stage, type StageVerdict } from '../engine/page.js';
import type { Catalog } from '../model.js';
import { Outcome } from '../outcomes.js';

/** What one stage of the pipeline would decide about the url. */
export interface TestStage {
  /** `acceptor domain-scope`, …, then each stage of the document pipeline by its name (`known-url`, `fetch`, …). */
  stage: string;
  /** `pass`: on to the next stage; `refuse`/`fail`: the url would end here; `skip`: not reached; `note`: for information. */
  verdict: 'pass' | 'refuse' | 'fail' | 'skip' | 'note';
  detail: string;
}

/** Where a link found on the page would go. */
export interface TestLink {
  url: string;
  text: string;
  /** `queued`: it passes the acceptors and would be put on the frontier; `refused`: an acceptor refuses it. */
  fate: 'queued' | 'refused' | 'not-followed';
  acceptor?: string | undefined;
  outcome?: string | undefined;
  reason?: string | undefined;
}

/**
 * One line of `test-url` for a stage of the dry run: `pass` when it sent the url on (with what it found), `refuse`
 * with the outcome when it ended the url, `fail` when it threw (REJECTED_ERROR), `note` for SAVED and LISTED.
 */
export function describeStage(
  stage: Stage,
  verdict: StageVerdict,
  page: PageInProgress,
  writes: DryWrites,
  catalog: Catalog,
  held: string | undefined,
): TestStage {
  const name = stage.name;
  if (verdict === ABANDON) return { stage: name, verdict: 'refuse', detail: 'no place left under the page limit' };
  if (verdict !== NEXT) {
    const key = verdict.detail ? `${verdict.outcome}:${verdict.detail}` : verdict.outcome;
    const detail = verdict.why ? `${key}: ${verdict.why}` : key;
    if (verdict.outcome === Outcome.SAVED) {
      const row = writes.page?.resource;
      const size = row ? `: ${row.textChars} characters of text, ${row.htmlBytes} bytes` : '';
      return {
        stage: name,
        verdict: 'note',
        detail: `would be saved to ${catalog.settings.outputs.join(' → ')}${size}; nothing is written by test-url`,
      };
    }
    if (verdict.outcome === Outcome.LISTED) return { stage: name, verdict: 'note', detail };
    return { stage: name, verdict: verdict.outcome === Outcome.REJECTED_ERROR ? 'fail' : 'refuse', detail };
  }
  return { stage: name, verdict: 'pass', detail: passed(name, page, catalog, held) };
}

/** What a stage that sent the url on found. */
function passed(name: string, page: PageInProgress, catalog: Catalog, held: string | undefined): string {
  switch (name) {
    case 'known-url':
      return held ?? 'not held by this version';
    case 'head':
      return page.head ? `HEAD answered ${page.head.status}` : 'no HEAD request (headPass off)';
    case 'fetch': {
      const r = page.result;
      return `HTTP ${r.status} ${r.contentType || '(no type)'}, ${r.body.length} bytes in ${Math.round(r.elapsedMs)} ms`;
    }
    case 'status':
      return `HTTP ${page.result.status}`;
    case 'markup':
      return page.document
        ? `a document, read by the ${page.document.parser} parser`
        : (page.result.contentType.split(';')[0] ?? '');
    case 'extract': {
      if (!page.extracted) return 'a document: read at the import stage';
      const c = page.content;
      return `"${c.title}": ${c.text.length} characters of text, ${c.links.length} links, ${c.images.length} pictures (${catalog.settings.contentExtractor})`;
    }
    case 'robots':
      return `noindex ${page.robots.noindex ? 'yes' : 'no'}, nofollow ${page.robots.nofollow ? 'yes' : 'no'}`;
    case 'links': {
      const o = page.completion.offer;
      return o ? `${o.accepted.length} would be queued, ${o.refused.length} refused` : 'none followed';
    }
    case 'noindex':
      return 'no noindex';
    case 'dedup':
      return `${catalog.settings.contentDedup || "the node's content dedup"}: no other page of this version has the same text`;
    case 'images':
      return catalog.settings.images ? 'pictures are not fetched by test-url' : 'pictures off';
    default:
      return 'passed';
  }
}

/** Where each link the url offers would go: what a crawl would commit with it (the accepted ones are queued). */
export function linksOf(page: PageInProgress): TestLink[] {
  const text = new Map(page.extracted ? page.content.links.map((l) => [l.url, l.text]) : []);
  if (page.extracted && page.robots.nofollow) {
    return page.content.links.map((l) => ({
      url: l.url,
      text: l.text,
      fate: 'not-followed',
      reason: 'robots nofollow',
    }));
  }
  const offer = page.completion.offer;
  if (!offer) return [];
  return [
    ...offer.accepted.map((e): TestLink => ({ url: e.url, text: text.get(e.url) ?? '', fate: 'queued' })),
    ...offer.refused.map(
      (r): TestLink => ({
        url: r.url,
        text: text.get(r.url) ?? '',
        fate: 'refused',
        acceptor: r.acceptor,
        outcome: r.outcome,
        reason: r.reason,
      }),
    ),
  ];
}
