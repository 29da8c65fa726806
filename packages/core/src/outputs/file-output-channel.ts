import { keys } from '../layout.js';
import type { Catalog } from '../model.js';
import type { BlobStore } from '../storage/blob-store.js';
import type { CrawledPage, OutputChannel } from './output-channel.js';
import { markdownPath, pageMarkdown } from './page-markdown.js';

/**
 * The file layer, always on: the page html, the article text, the article as Markdown with its front matter when
 * the page comes with it (replay; a crawl leaves it to be made later), and each picture once per version. Keys are `assets/{catalogId}/v{n}/pages/ab/cd/{resourceId}.html|.txt|.md` and
 * `…/images/ab/cd/{imageId}.{ext}`.
 */
export class FileOutputChannel implements OutputChannel {
  readonly layer = 'file' as const;
  readonly #blobs: BlobStore;
  #written = 0;

  constructor(blobs: BlobStore) {
    this.#blobs = blobs;
  }

  async write(page: CrawledPage): Promise<void> {
    const { resource } = page;
    const writes: Array<Promise<void>> = [this.#blobs.put(resource.textPath, page.text)];
    if (page.markdown !== undefined)
      writes.push(this.#blobs.put(markdownPath(resource.textPath), pageMarkdownOf(page)));
    if (page.html !== undefined) writes.push(this.#blobs.put(resource.htmlPath, page.html));
    for (const image of page.images) {
      if (image.bytes) writes.push(this.#blobs.put(image.row.path, image.bytes));
    }
    await Promise.all(writes);
    this.#written++;
  }

  counts(): { written: number; failed: number } {
    return { written: this.#written, failed: 0 };
  }

  async flush(): Promise<void> {}

  async deleteVersion(catalogId: string, version: number, dryRun: boolean): Promise<{ count: number; bytes: number }> {
    const prefix = keys.version(catalogId, version);
    const { objects, bytes } = dryRun ? await this.#blobs.stat(prefix) : await this.#blobs.deletePrefix(prefix);
    return { count: objects, bytes };
  }

  async close(): Promise<void> {}
}

/** The Markdown file of a page: its converted article, or its text (a document, a replay without the html). */
export function pageMarkdownOf(
  page: Pick<CrawledPage, 'version' | 'resource' | 'text' | 'markdown' | 'markdownSource' | 'markdownOrigin'> & {
    catalog: Pick<Catalog, 'id' | 'name'>;
  },
): string {
  const converted = page.markdown !== undefined && page.markdown.trim().length > 0;
  return pageMarkdown({
    catalog: page.catalog,
    version: page.version,
    resource: page.resource,
    body: converted ? (page.markdown as string) : page.text,
    source: converted ? (page.markdownSource ?? 'html') : 'text',
    origin: converted && page.markdownSource === 'site' ? page.markdownOrigin : undefined,
  });
}
