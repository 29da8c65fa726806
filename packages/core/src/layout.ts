import { join, resolve } from 'node:path';
import { fanout } from './ids.js';

/**
 * The storage layout of the design: `system/` is working state (database, frontier, dedup) and can be
 * deleted at the cost of a resume; `user/` is what was crawled and what search reads.
 * Blob keys are relative to `user/`, so a local path and an object key are the same string.
 */
export class DataLayout {
  readonly root: string;
  readonly system: string;
  readonly user: string;
  constructor(root: string) {
    this.root = resolve(root);
    this.system = join(this.root, 'system');
    this.user = join(this.root, 'user');
  }
  get sqliteFile(): string {
    return join(this.system, 'greenfinger.db');
  }
  frontierDir(catalogId: string, version: number): string {
    return join(this.system, 'frontier', catalogId, `v${version}`);
  }
  get urlDedupDir(): string {
    return join(this.system, 'dedup', 'url');
  }
  get contentDedupDir(): string {
    return join(this.system, 'dedup', 'content');
  }
  /** The content fingerprints of one dedup kind: sha256 in `dedup/content`, any other in `dedup/content-{kind}`. */
  contentDedupDirOf(kind: string): string {
    return kind === 'sha256' ? this.contentDedupDir : `${this.contentDedupDir}-${kind}`;
  }
  /** What the adaptive extractor learned per host and url pattern (one JSON file per host). */
  get renderMemoryDir(): string {
    return join(this.system, 'render-memory');
  }
  indexDir(prefix: string, catalogId: string): string {
    return join(this.user, 'index', `${prefix}-${catalogId}`);
  }
  get indexRoot(): string {
    return join(this.user, 'index');
  }
  vectorDir(collection: string, dims: number): string {
    return join(this.user, 'vector', `${collection}_${dims}`);
  }
  absolute(key: string): string {
    return join(this.user, key);
  }
}

/** Blob keys (relative to user/). */
export const keys = {
  catalogFile: (catalogId: string): string => `assets/${catalogId}/catalog.json`,
  version: (catalogId: string, version: number): string => `assets/${catalogId}/v${version}`,
  settings: (catalogId: string, version: number): string => `assets/${catalogId}/v${version}/settings.json`,
  report: (catalogId: string, version: number, stamp: string, action: string, node: string): string =>
    `assets/${catalogId}/v${version}/reports/${stamp}-${action}-${node}.json`,
  pageHtml: (catalogId: string, version: number, resourceId: string): string =>
    `assets/${catalogId}/v${version}/pages/${fanout(resourceId)}/${resourceId}.html`,
  /**
   * A document's original bytes, where an html page keeps its html: `<id>.original.pdf` (`.docx`, `.txt`, …), so a
   * text document's bytes never meet its article text (`<id>.txt`).
   */
  pageOriginal: (catalogId: string, version: number, resourceId: string, extension: string): string =>
    `assets/${catalogId}/v${version}/pages/${fanout(resourceId)}/${resourceId}.original${extension}`,
  pageText: (catalogId: string, version: number, resourceId: string): string =>
    `assets/${catalogId}/v${version}/pages/${fanout(resourceId)}/${resourceId}.txt`,
  image: (catalogId: string, version: number, imageId: string, ext: string): string =>
    `assets/${catalogId}/v${version}/images/${fanout(imageId)}/${imageId}.${ext}`,
};
