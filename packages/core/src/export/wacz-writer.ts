import type { ByteSink } from './byte-sink.js';
import { sortCdxj } from './cdxj.js';
import type { ExportSource } from './export-source.js';
import type { ExportTally } from './export-tally.js';
import { archiveVersion, SOFTWARE } from './warc-export.js';
import { WarcWriter } from './warc-writer.js';
import { type ZipEntryInfo, ZipWriter } from './zip-writer.js';

/** The WACZ version the package follows (specs.webrecorder.net/wacz/1.1.1). */
export const WACZ_VERSION = '1.1.1';

/**
 * `--format wacz`: one zip, entries stored, holding
 * - `archive/data.warc.gz`: the records of the warc format, streamed into the zip as they are made;
 * - `indexes/index.cdxj`: one line per record (url, time, status, digest, offset and length in the WARC), sorted;
 * - `pages/pages.jsonl`: a header line, then one line per page (id, url, title, ts);
 * - `datapackage.json`: every file above with its size and sha256; `datapackage-digest.json`: the hash of that.
 * The index and page lines are kept in memory until the WARC ends (about 400 bytes a page); the pages' bytes are not.
 */
export async function writeWacz(source: ExportSource, sink: ByteSink, tally: ExportTally): Promise<void> {
  const zip = new ZipWriter(sink);
  const warcEntry = await zip.begin('archive/data.warc.gz');
  const cdxj: string[] = [];
  const pages: string[] = [JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' })];
  await archiveVersion(source, new WarcWriter(warcEntry, 'data.warc.gz'), tally, (r) => {
    cdxj.push(r.cdxj);
    if (r.page) pages.push(JSON.stringify(r.page));
  });
  const files: ZipEntryInfo[] = [await warcEntry.end()];
  files.push(await zip.add('indexes/index.cdxj', lines(sortCdxj(cdxj))));
  cdxj.length = 0;
  files.push(await zip.add('pages/pages.jsonl', lines(pages)));
  pages.length = 0;
  const created = new Date().toISOString();
  const datapackage = {
    profile: 'data-package',
    wacz_version: WACZ_VERSION,
    title: `${source.catalog.name} version ${source.version}`,
    description: `Greenfinger catalog ${source.catalog.name} (${source.catalog.url}), version ${source.version}`,
    created,
    software: SOFTWARE,
    mainPageUrl: source.catalog.startUrl || source.catalog.url,
    resources: files.map((f) => ({ name: f.name.split('/').pop(), path: f.name, hash: f.hash, bytes: f.bytes })),
  };
  const manifest = await zip.add('datapackage.json', JSON.stringify(datapackage, null, 2));
  await zip.add('datapackage-digest.json', JSON.stringify({ path: 'datapackage.json', hash: manifest.hash }, null, 2));
  await zip.finish();
}

function lines(items: string[]): string {
  return items.length === 0 ? '' : `${items.join('\n')}\n`;
}
