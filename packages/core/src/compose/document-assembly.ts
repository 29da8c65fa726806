import { documentKind } from '../content/documents/document-parsers.js';
import { DocumentPool } from '../content/documents/document-pool.js';
import type { CrawlEngineDeps } from '../engine/engine-deps.js';
import type { Catalog } from '../model.js';
import type { ComponentFactory } from './component-factory.js';

/** The document side of one run: which answers are documents, and the importer that reads them. */
export interface RunDocuments {
  deps: Pick<CrawlEngineDeps, 'documentKind' | 'parseDocument' | 'documentMaxBytes'>;
  /** Terminate the document worker (it starts only when the first document arrives). */
  close(): Promise<void>;
}

/**
 * Documents (PDF, Word, text) of a run: on unless the catalog's `documents` or the node's GF_DOCUMENTS is false, or
 * the catalog writes no file layer to keep them in. Parsed on one worker thread, under GF_DOCUMENT_MAX_MB and
 * GF_DOCUMENT_TIMEOUT_MS.
 */
export function assembleDocuments(f: ComponentFactory, catalog: Catalog): RunDocuments {
  if (!f.settings.documents || !catalog.settings.documents) return { deps: {}, close: async () => undefined };
  const { documentMaxBytes, documentTimeoutMs } = f.settings;
  let pool: DocumentPool | undefined;
  return {
    deps: {
      documentKind,
      documentMaxBytes,
      parseDocument: (bytes, url, contentType) => {
        pool ??= new DocumentPool({ maxBytes: documentMaxBytes, timeoutMs: documentTimeoutMs });
        return pool.parse(bytes, url, contentType);
      },
    },
    close: async () => {
      await pool?.close();
    },
  };
}
