import { parentPort } from 'node:worker_threads';
import { ConfigError } from '../errors.js';
import { decodeBody } from '../fetch/charset.js';
import type { IndexWriterRequest } from '../index/index-writer-worker.js';
import type { BlobWriterRequest } from '../storage/blob-writer-worker.js';
import type { ContentExtractor } from './content-extractor.js';
import { createContentExtractor } from './content-extractors.js';
import { htmlToMarkdown } from './html-markdown.js';

/** A job sent to an extraction worker. */
export interface ExtractJob {
  id: number;
  html: string | Uint8Array;
  url: string;
  extractor: string;
  contentType: string | undefined;
  /** Convert the article to Markdown too (the catalog's `markdownFiles`). */
  markdown?: boolean | undefined;
}

/** A worker's answer: the content, or the error rebuilt on the main thread. */
export type ExtractReply =
  | { id: number; ok: true; content: import('./content-extractor.js').ExtractedContent }
  | { id: number; ok: false; error: { name: string; message: string; field?: string | undefined } };

const extractors = new Map<string, ContentExtractor>();

/** Run one job (also used inline when the pool has no workers). */
export function runExtractJob(job: Omit<ExtractJob, 'id'>) {
  let extractor = extractors.get(job.extractor);
  if (!extractor) {
    extractor = createContentExtractor(job.extractor);
    extractors.set(job.extractor, extractor);
  }
  const decoded = typeof job.html === 'string' ? undefined : decodeBody(job.html, job.contentType);
  const html = decoded ? decoded.text : (job.html as string);
  const content = extractor.extract(html, job.url);
  // Bytes invalid in their charset were decoded with another (never into U+FFFD): the engine counts it.
  if (decoded?.fallbackFrom !== undefined) content.charsetFallback = decoded.charset;
  if (job.markdown) content.markdown = htmlToMarkdown(html, job.url);
  return content;
}

/**
 * Requests of the components this thread may host besides extraction (see SharedThread): the index writer and the
 * blob writer, each loaded on its first request and served in the order its requests arrive.
 */
type Hosted = IndexWriterRequest | BlobWriterRequest;
let indexWriter: Promise<typeof import('../index/index-writer-worker.js')> | undefined;
let blobWriter: Promise<typeof import('../storage/blob-writer-worker.js')> | undefined;

function serveHosted(req: Hosted, post: (reply: object) => void): void {
  const failed = (err: Error) => post({ channel: req.channel, id: req.id, error: err.message });
  if (req.channel === 'index') {
    indexWriter ??= import('../index/index-writer-worker.js');
    indexWriter.then((m) => m.serveIndexWriter(req, post), failed);
  } else {
    blobWriter ??= import('../storage/blob-writer-worker.js');
    blobWriter.then((m) => m.serveBlobWriter(req, post), failed);
  }
}

const port = parentPort;
if (port) {
  port.on('message', (job: ExtractJob | Hosted) => {
    if ('channel' in job) {
      serveHosted(job, (r) => port.postMessage(r));
      return;
    }
    let reply: ExtractReply;
    try {
      reply = { id: job.id, ok: true, content: runExtractJob(job) };
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      reply = {
        id: job.id,
        ok: false,
        error: { name: e.name, message: e.message, field: err instanceof ConfigError ? err.field : undefined },
      };
    }
    port.postMessage(reply);
  });
}
