import { createWriteStream, existsSync } from 'node:fs';
import { CrawlerError } from '../errors.js';
import type { CatalogRef } from '../model.js';
import type { Greenfinger } from '../services/greenfinger.js';
import type { VectorStore } from '../vector/vector-store.js';
import { ByteSink } from './byte-sink.js';
import { ExportSource } from './export-source.js';
import { type ExportCounts, type ExportProgress, ExportTally } from './export-tally.js';
import { writeJsonl } from './jsonl-writer.js';
import { folderTree, writeMarkdownTree, zipTree } from './markdown-tree.js';
import { writeWacz } from './wacz-writer.js';
import { writeWarc } from './warc-export.js';
import { ZipWriter } from './zip-writer.js';

/** The export formats: JSON lines, a Markdown tree, a WARC, a WACZ. */
export const EXPORT_FORMATS = ['jsonl', 'markdown', 'warc', 'wacz'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The media type each format is served with; markdown goes over HTTP as a zip of its tree. */
export const EXPORT_MEDIA_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  markdown: 'application/zip',
  warc: 'application/warc',
  wacz: 'application/wacz',
};

/** What to export. */
export interface ExportRequest {
  catalog: CatalogRef;
  /** @default the version search reads, else the one being written */
  version?: number | undefined;
  format: ExportFormat;
  /** jsonl only: each page's embedded chunks with their vectors. @default false */
  chunks?: boolean | undefined;
}

/** An export resolved and checked, before any byte is written. */
export interface ExportPlan {
  request: ExportRequest;
  source: ExportSource;
  /** A file name for it: `<catalog>-v<n>.jsonl`, `.warc.gz`, `.wacz`, `-markdown.zip`. */
  fileName: string;
}

/** What an export wrote. */
export interface ExportSummary extends ExportCounts {
  format: ExportFormat;
  catalog: { id: string; name: string };
  version: number;
  /** Bytes written (a markdown folder: the bytes of its files are not counted, 0). */
  bytes: number;
}

export interface ExportOptions {
  onProgress?: ((p: ExportProgress) => void) | undefined;
}

/** `format` checked: one of EXPORT_FORMATS. @throws CrawlerError BAD_INPUT naming the field */
export function parseExportFormat(value: unknown, field = 'format'): ExportFormat {
  if (typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value)) return value as ExportFormat;
  throw new CrawlerError(
    'BAD_INPUT',
    `${field}: ${value === undefined ? 'missing' : JSON.stringify(value)} is not an export format`,
    {
      fix: `give ${field} one of ${EXPORT_FORMATS.join(', ')}`,
    },
  );
}

/**
 * Exports of a stored version, the one entry the CLI (`greenfinger export`) and the API
 * (`GET /v2/catalog/:ref/export`) share: `plan` resolves and checks the request (a bad one fails before any byte),
 * then `write` streams the format onto a stream, or `writeTo` into a file (a folder for markdown).
 */
export class ExportService {
  readonly #gf: Pick<Greenfinger, 'factory' | 'catalogs' | 'database' | 'blobs'>;

  constructor(gf: Pick<Greenfinger, 'factory' | 'catalogs' | 'database' | 'blobs'>) {
    this.#gf = gf;
  }

  async plan(request: ExportRequest): Promise<ExportPlan> {
    const format = parseExportFormat(request.format);
    if (request.chunks && format !== 'jsonl') {
      throw new CrawlerError('BAD_INPUT', `chunks: the chunks go with the jsonl format, not ${format}`, {
        fix: 'leave chunks out, or export with format jsonl',
      });
    }
    const catalog = await (await this.#gf.catalogs()).get(request.catalog);
    const db = await this.#gf.database();
    const versions = await db.resources.versions(catalog.id);
    const version = request.version ?? (catalog.searchVersion >= 0 ? catalog.searchVersion : catalog.indexVersion);
    if (!versions.includes(version)) {
      throw new CrawlerError('NOT_FOUND', `catalog "${catalog.name}" holds no pages in version ${version}`, {
        fix: versions.length
          ? `export one of its versions: ${versions.join(', ')}`
          : `crawl it first: greenfinger crawl --name ${catalog.name}`,
      });
    }
    const vectors = request.chunks ? await this.#vectorsOf(catalog.id, version, catalog.name) : undefined;
    const pages = (await db.resources.count(catalog.id, version)).resources;
    const source = new ExportSource({ db, blobs: this.#gf.blobs, vectors }, { catalog, version, pages });
    const base = `${catalog.name.replace(/[^A-Za-z0-9._-]+/g, '_')}-v${version}`;
    const ext = { jsonl: '.jsonl', markdown: '-markdown.zip', warc: '.warc.gz', wacz: '.wacz' }[format];
    return { request: { ...request, format, version }, source, fileName: `${base}${ext}` };
  }

  /** Stream the export onto `out` (left open: the caller ends it); markdown is a zip of its tree. */
  async write(plan: ExportPlan, out: NodeJS.WritableStream, options: ExportOptions = {}): Promise<ExportSummary> {
    const sink = new ByteSink(out);
    const tally = new ExportTally(plan.source.pages, options.onProgress);
    const { source } = plan;
    switch (plan.request.format) {
      case 'jsonl':
        await writeJsonl(source, sink, tally, { chunks: plan.request.chunks });
        break;
      case 'warc':
        await writeWarc(source, sink, tally);
        break;
      case 'wacz':
        await writeWacz(source, sink, tally);
        break;
      case 'markdown': {
        const zip = new ZipWriter(sink);
        await writeMarkdownTree(source, zipTree(zip), tally);
        await zip.finish();
        break;
      }
    }
    tally.end();
    return this.#summary(plan, tally, sink.bytes);
  }

  /**
   * Write the export at `path`: a new file, or for markdown a new (or empty) folder of `.md` files. An existing
   * file is never overwritten. A failed export removes nothing it did not write, and leaves what it wrote.
   */
  async writeTo(plan: ExportPlan, path: string, options: ExportOptions = {}): Promise<ExportSummary> {
    if (plan.request.format === 'markdown') {
      const tally = new ExportTally(plan.source.pages, options.onProgress);
      await writeMarkdownTree(plan.source, folderTree(path), tally);
      tally.end();
      return this.#summary(plan, tally, 0);
    }
    if (existsSync(path)) {
      throw new CrawlerError('BAD_INPUT', `--out ${path} exists already`, {
        fix: 'give --out a path that does not exist yet (an export never overwrites a file)',
      });
    }
    const file = createWriteStream(path, { flags: 'wx' });
    await new Promise<void>((resolve, reject) => {
      file.once('open', () => resolve());
      file.once('error', (err) =>
        reject(
          new CrawlerError('BAD_INPUT', `--out ${path}: cannot create it (${(err as NodeJS.ErrnoException).code})`, {
            fix: 'give --out a path in a folder that exists and that you may write',
            cause: err,
          }),
        ),
      );
    });
    try {
      const summary = await this.write(plan, file, options);
      await new ByteSink(file).end();
      return summary;
    } catch (err) {
      file.destroy();
      throw err;
    }
  }

  /** The vector collection holding this version (for `chunks`). @throws CrawlerError NOT_FOUND when none does */
  async #vectorsOf(catalogId: string, version: number, name: string): Promise<VectorStore> {
    for (const store of await this.#gf.factory.vectorFamily().collections()) {
      if (store.pointsOfResource && (await store.countVersion(catalogId, version)) > 0) return store;
    }
    throw new CrawlerError('NOT_FOUND', `chunks: version ${version} of "${name}" has no text vectors`, {
      fix: `crawl with the vector output, or rebuild them: greenfinger replay --name ${name} --layers vector`,
    });
  }

  #summary(plan: ExportPlan, tally: ExportTally, bytes: number): ExportSummary {
    const { catalog, version } = plan.source;
    return {
      format: plan.request.format,
      catalog: { id: catalog.id, name: catalog.name },
      version,
      bytes,
      ...tally.counts,
    };
  }
}
