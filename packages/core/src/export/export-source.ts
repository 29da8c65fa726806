import type { Catalog, ImageRow, ResourceRow } from '../model.js';
import { markdownPath, readFrontMatter } from '../outputs/page-markdown.js';
import { markdownFromFiles } from '../services/page-service.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { ImageWithRef } from '../storage/record-columns.js';
import type { RecordDatabase } from '../storage/record-store.js';
import type { VectorPoint, VectorStore } from '../vector/vector-store.js';

/** Rows read from the database per query while an export walks a version. */
export const EXPORT_BATCH = 100;

/** One chunk of a page as the vector layer embedded it. */
export interface ExportChunk {
  index: number;
  text: string;
  vector: number[];
}

/**
 * One version of one catalog, read page by page for an export: rows from the record database in id order, a
 * page's bytes, text and Markdown from the file layer, its chunks from the vector layer. Nothing is read ahead.
 */
export class ExportSource {
  readonly catalog: Catalog;
  readonly version: number;
  /** Pages in the version (the rows; a page whose files are gone is counted as missing when met). */
  readonly pages: number;
  readonly #db: RecordDatabase;
  readonly #blobs: BlobStore;
  readonly #vectors: VectorStore | undefined;

  constructor(
    parts: { db: RecordDatabase; blobs: BlobStore; vectors?: VectorStore | undefined },
    scope: { catalog: Catalog; version: number; pages: number },
  ) {
    this.#db = parts.db;
    this.#blobs = parts.blobs;
    this.#vectors = parts.vectors;
    this.catalog = scope.catalog;
    this.version = scope.version;
    this.pages = scope.pages;
  }

  /** The version's page rows, in id order. */
  async *rows(): AsyncIterable<ResourceRow> {
    for await (const batch of this.#db.resources.iterateResources(this.catalog.id, this.version, EXPORT_BATCH)) {
      yield* batch;
    }
  }

  /** The version's pictures, in id order. */
  async *images(): AsyncIterable<ImageRow> {
    for await (const batch of this.#db.resources.iterateImages(this.catalog.id, this.version, EXPORT_BATCH)) {
      yield* batch;
    }
  }

  /** The bytes a page was saved with (its html, or a document's original); undefined when the file is gone. */
  body(row: ResourceRow): Promise<Buffer | undefined> {
    return this.#blobs.get(row.htmlPath);
  }

  picture(image: ImageRow): Promise<Buffer | undefined> {
    return this.#blobs.get(image.path);
  }

  async text(row: ResourceRow): Promise<string | undefined> {
    return this.#blobs.getText(row.textPath);
  }

  /** A page's Markdown file (front matter and body): the one a replay wrote, else made now from its html or text. */
  async markdownFile(row: ResourceRow): Promise<string> {
    return (
      (await this.#blobs.getText(markdownPath(row.textPath))) ??
      (await markdownFromFiles(this.#blobs, this.catalog, this.version, row))
    );
  }

  /** A page's Markdown without its front matter. */
  async markdownBody(row: ResourceRow): Promise<string> {
    return readFrontMatter(await this.markdownFile(row)).body;
  }

  pictures(row: ResourceRow): Promise<ImageWithRef[]> {
    return this.#db.resources.imagesOfResource(row.id);
  }

  /** Whether chunks can be read: a vector collection holds this version. */
  get hasChunks(): boolean {
    return this.#vectors?.pointsOfResource !== undefined;
  }

  async chunks(row: ResourceRow): Promise<ExportChunk[]> {
    const points: VectorPoint[] =
      (await this.#vectors?.pointsOfResource?.(this.catalog.id, this.version, row.id)) ?? [];
    return points.map((p) => ({ index: p.payload.chunkIndex, text: p.payload.chunk, vector: Array.from(p.vector) }));
  }
}
