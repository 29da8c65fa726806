import type { ComponentFactory } from '../compose/component-factory.js';
import type { RunContext } from '../compose/components.js';
import { assembleDocuments } from '../compose/document-assembly.js';
import { assembleExtract, assembleFetchers, assemblePoliteness, openExtractPool } from '../compose/run-assembly.js';
import { errorMessage } from '../errors.js';
import type { Extractor } from '../fetch/extractor.js';
import { isMarkupType } from '../fetch/http-extractor.js';
import { storedResponseOf } from '../fetch/stored-response.js';
import { sha256Hex } from '../ids.js';
import type { Catalog, ImageRow, ResourceRow } from '../model.js';
import { markdownPath } from '../outputs/page-markdown.js';
import type { RecordDatabase } from '../storage/record-store.js';
import { markdownFromFiles } from './page-service.js';
import {
  emptyCounts,
  type FileReplayCounts,
  MAX_FAILURES_LISTED,
  type ReplayProgress,
  type ReplayReport,
  type SliceWork,
} from './replay-report.js';

/** What the file layer of one replay slice works on. */
export interface FileReplayWork {
  gf: ComponentFactory;
  catalog: Catalog;
  version: number;
  work: SliceWork;
  /** Pages of the slice (known before it runs). */
  total: number;
  /** The slice's resource rows, in batches of at most `batch`. */
  rows(batch: number): AsyncIterable<ResourceRow[]>;
  onProgress?: ((progress: ReplayProgress) => void) | undefined;
}

type FileLayer = NonNullable<ReplayReport['layers']['file']>;

/** A page with a file missing: which of its two files. */
interface MissingPage {
  row: ResourceRow;
  html: boolean;
  text: boolean;
}

/**
 * The file layer of one slice: refetch the pages and pictures whose files are missing, from the urls their rows
 * record; the rest is left untouched. A page whose content changed is rewritten with its row; a picture whose bytes
 * changed is not (its id is its content hash). A page without its Markdown file (a crawl does not write it) gets it
 * from its stored html and text, without a request (`markdown` counts them).
 */
export async function replayFiles(w: FileReplayWork): Promise<FileLayer> {
  const layer: FileLayer = { pages: emptyCounts(), images: emptyCounts(), failures: [] };
  const { missing, held, markdown } = await checkPages(w, layer.pages);
  layer.markdown = 0;
  for (const row of markdown) {
    try {
      await rebuildMarkdown(w, row);
      layer.markdown++;
    } catch (err) {
      if (layer.failures.length < MAX_FAILURES_LISTED) layer.failures.push({ url: row.url, reason: errorMessage(err) });
    }
  }
  const missingImages = await checkImages(w, held, layer.images);
  if (missing.length === 0 && missingImages.length === 0) return layer;
  await refetch(w, layer, missing, missingImages);
  w.onProgress?.({ layer: 'file', done: w.total, total: w.total });
  return layer;
}

/** Which pages of the slice have a file missing (a page with both missing is `absent` when the slice says so). */
async function checkPages(
  w: FileReplayWork,
  pages: FileReplayCounts,
): Promise<{ missing: MissingPage[]; held: string[]; markdown: ResourceRow[] }> {
  const { gf, work } = w;
  const missing: MissingPage[] = [];
  const markdown: ResourceRow[] = [];
  const held: string[] = [];
  let seen = 0;
  for await (const rows of w.rows(500)) {
    for (const row of rows) {
      seen++;
      const [html, text, md] = await Promise.all([
        gf.blobs.exists(row.htmlPath),
        gf.blobs.exists(row.textPath),
        gf.blobs.exists(markdownPath(row.textPath)),
      ]);
      if (!html && !text && work.missing === 'absent') {
        work.absent.add(row.id);
        continue;
      }
      pages.checked++;
      held.push(row.id);
      if (html && text) pages.intact++;
      else missing.push({ row, html: !html, text: !text });
      if (html && text && !md) markdown.push(row);
    }
    w.onProgress?.({ layer: 'file', done: seen, total: w.total });
  }
  work.out.pages = Math.max(work.out.pages, seen);
  return { missing, held, markdown };
}

/** A page's Markdown written again from its stored html (a page) or text (a document). */
async function rebuildMarkdown({ gf, catalog, version }: FileReplayWork, row: ResourceRow): Promise<void> {
  await gf.blobs.put(markdownPath(row.textPath), await markdownFromFiles(gf.blobs, catalog, version, row));
}

/** Which pictures have their file missing: those of the pages held here (a slice), or of the whole version. */
async function checkImages(w: FileReplayWork, held: readonly string[], images: FileReplayCounts): Promise<ImageRow[]> {
  const db = await w.gf.database();
  const missingImages: ImageRow[] = [];
  const checkImage = async (img: ImageRow) => {
    images.checked++;
    if (await w.gf.blobs.exists(img.path)) images.intact++;
    else missingImages.push(img);
  };
  if (w.work.ids) {
    // The pictures of the pages held here (an absent page's pictures are with its files).
    const known = new Set<string>();
    for (const id of held) {
      for (const img of await db.resources.imagesOfResource(id)) {
        if (known.has(img.id)) continue;
        known.add(img.id);
        const { alt: _alt, surroundingText: _text, ...row } = img;
        await checkImage(row);
      }
    }
  } else {
    for await (const rows of db.resources.iterateImages(w.catalog.id, w.version, 500)) {
      for (const img of rows) await checkImage(img);
    }
  }
  return missingImages;
}

/** The parts a refetch uses, assembled as a run of the catalog would (action `replay`). */
type Refetcher = Awaited<ReturnType<typeof openRefetcher>>;

function openRefetcher(w: FileReplayWork) {
  const { gf, catalog, version } = w;
  const ctx: RunContext = { settings: gf.settings, layout: gf.layout, log: gf.log, catalog, version, action: 'replay' };
  const fetchers = assembleFetchers(gf, ctx);
  const politeness = assemblePoliteness(gf, ctx);
  const pool = openExtractPool(gf, { inline: true });
  const documents = assembleDocuments(gf, catalog);
  return {
    page: counted(fetchers.page, w.work.out),
    image: counted(fetchers.image, w.work.out),
    extract: assembleExtract(gf, catalog, pool),
    documents,
    /** `work` with one of the host's politeness slots held. */
    polite: async <T>(url: string, work: () => Promise<T>): Promise<T> => {
      const release = await politeness.acquire(new URL(url).host);
      try {
        return await work();
      } finally {
        release();
      }
    },
    close: async () => {
      await documents.close();
      await pool.close();
      await fetchers.close();
    },
  };
}

/** Fetch the missing pages, then the missing pictures, `threads` at a time. */
async function refetch(
  w: FileReplayWork,
  layer: FileLayer,
  missing: MissingPage[],
  missingImages: ImageRow[],
): Promise<void> {
  const threads = w.catalog.settings.threads;
  const db = await w.gf.database();
  const fail = (url: string, reason: string) => {
    if (layer.failures.length < MAX_FAILURES_LISTED) layer.failures.push({ url, reason });
  };
  const r = openRefetcher(w);
  let done = w.total - missing.length;
  try {
    await eachLimited(missing, threads, async (page) => {
      try {
        await refetchPage(w, db, r, page, layer.pages, fail);
      } catch (err) {
        layer.pages.unreachable++;
        fail(page.row.url, errorMessage(err));
      } finally {
        done++;
        if (done % 50 === 0) w.onProgress?.({ layer: 'file', done, total: w.total });
      }
    });
    await eachLimited(missingImages, threads, async (img) => {
      try {
        await refetchImage(w.gf, r, img, layer.images, fail);
      } catch (err) {
        layer.images.unreachable++;
        fail(img.url, errorMessage(err));
      }
    });
  } finally {
    await r.close();
  }
}

/** One page: fetched and read again; the same text writes the missing files, other text rewrites the page and row. */
async function refetchPage(
  w: FileReplayWork,
  db: RecordDatabase,
  r: Refetcher,
  { row, html, text }: MissingPage,
  pages: FileReplayCounts,
  fail: (url: string, reason: string) => void,
): Promise<void> {
  const { gf } = w;
  const document = r.documents.deps.documentKind?.(row.contentType, row.url);
  const cap = r.documents.deps.documentMaxBytes;
  const result = await r.polite(row.url, () => r.page.fetch(row.url, document ? { document: () => cap } : {}));
  const readable = document ? result.body.length > 0 : isMarkupType(result.contentType) && result.text !== undefined;
  if (result.status !== 200 || !readable) {
    pages.unreachable++;
    fail(row.url, `HTTP ${result.status} ${result.contentType.split(';')[0] ?? ''}`.trim());
    return;
  }
  // A document is read again by its parser; a page by the catalog's content extractor.
  const content =
    document && r.documents.deps.parseDocument
      ? await r.documents.deps.parseDocument(result.body, row.url, result.contentType)
      : await r.extract(result.text ?? '', row.url, result.contentType);
  const contentHash = sha256Hex(content.text);
  // Its Markdown from the files just written (a refetched page's may have changed with them).
  const markdownOf = (resource: ResourceRow) => rebuildMarkdown(w, resource);
  if (contentHash === row.contentHash) {
    if (html) await gf.blobs.put(row.htmlPath, result.body);
    if (text) await gf.blobs.put(row.textPath, content.text);
    await markdownOf(row);
    pages.written++;
    return;
  }
  await gf.blobs.put(row.htmlPath, result.body);
  await gf.blobs.put(row.textPath, content.text);
  const changed: ResourceRow = {
    ...row,
    title: content.title || row.url,
    contentType: result.contentType,
    charset: result.charset,
    contentHash,
    etag: result.etag,
    lastModified: result.lastModified,
    htmlBytes: result.body.length,
    textChars: content.text.length,
    linkDensity: content.linkDensity,
    fetchedAt: new Date().toISOString(),
    response: storedResponseOf(row.url, result),
  };
  await markdownOf(changed);
  await db.resources.saveResources([changed]);
  pages.changed++;
}

/** One picture: written again only when its bytes are the ones its id (their hash) names. */
async function refetchImage(
  gf: ComponentFactory,
  r: Refetcher,
  img: ImageRow,
  images: FileReplayCounts,
  fail: (url: string, reason: string) => void,
): Promise<void> {
  const result = await r.polite(img.url, () => r.image.fetch(img.url, { binary: true }));
  if (result.status !== 200 || result.body.length === 0) {
    images.unreachable++;
    fail(img.url, `HTTP ${result.status}`);
    return;
  }
  if (sha256Hex(result.body) !== img.contentHash) {
    images.changed++;
    fail(img.url, 'the picture changed: its id is its content hash, so it is not written under the old id');
    return;
  }
  await gf.blobs.put(img.path, result.body);
  images.written++;
}

/** An extractor that counts its requests into the report. */
function counted(e: Extractor, report: { requests: number }): Extractor {
  return {
    name: e.name,
    fetch: (url, o) => {
      report.requests++;
      return e.fetch(url, o);
    },
    close: () => e.close(),
  };
}

/** Run `work` over the items with at most `limit` at once. */
async function eachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(lanes);
}
