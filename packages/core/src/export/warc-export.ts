import type { ByteSink } from './byte-sink.js';
import { type CdxjEntry, cdxjLine } from './cdxj.js';
import type { ExportSource } from './export-source.js';
import type { ExportTally } from './export-tally.js';
import { type WarcOut, WarcWriter } from './warc-writer.js';

/** What the archive pass hands on per page: its CDXJ line and, for a page, its pages.jsonl entry. */
export interface ArchivedRecord {
  cdxj: string;
  page?: { id: string; url: string; title: string; ts: string } | undefined;
}

/** The software line a warcinfo record and a WACZ datapackage carry. */
export const SOFTWARE = 'Greenfinger';

/**
 * Every saved page of the version, then every picture, as WARC records: a page with its kept answer as a
 * `response`, one saved before answers were kept (or a `file:` source) as a `resource`, a picture as a `resource`.
 */
export async function archiveVersion(
  source: ExportSource,
  warc: WarcWriter,
  tally: ExportTally,
  onRecord?: (r: ArchivedRecord) => void,
): Promise<void> {
  const now = new Date().toISOString();
  await warc.warcinfo(now, {
    software: SOFTWARE,
    format: 'WARC File Format 1.1',
    'is-part-of': `${source.catalog.name} version ${source.version}`,
    description: `catalog ${source.catalog.id} (${source.catalog.url}), version ${source.version}, exported ${now}`,
  });
  const index = (e: Omit<CdxjEntry, 'filename'>) => cdxjLine({ ...e, filename: warc.filename });
  for await (const row of source.rows()) {
    const body = await source.body(row);
    if (!body) {
      tally.missing(row.url);
      continue;
    }
    const mime = mediaType(row.contentType);
    const response = row.response ?? undefined;
    const info = response
      ? await warc.response(row.url, row.fetchedAt, response, body)
      : await warc.resource(row.url, row.fetchedAt, row.contentType, body);
    tally.page(0, !response);
    onRecord?.({
      cdxj: index({ url: row.url, date: row.fetchedAt, mime, status: response?.status, ...info }),
      page: { id: row.id, url: row.url, title: row.title, ts: row.fetchedAt },
    });
  }
  for await (const image of source.images()) {
    const bytes = await source.picture(image);
    if (!bytes) continue;
    const info = await warc.resource(image.url, image.createdAt, image.contentType, bytes);
    tally.picture();
    onRecord?.({ cdxj: index({ url: image.url, date: image.createdAt, mime: mediaType(image.contentType), ...info }) });
  }
}

/** `--format warc`: the records of `archiveVersion` as one `.warc.gz` (a gzip member per record). */
export async function writeWarc(source: ExportSource, sink: ByteSink, tally: ExportTally): Promise<void> {
  const out: WarcOut = {
    get bytes() {
      return sink.bytes;
    },
    write: (data) => sink.write(data),
  };
  await archiveVersion(source, new WarcWriter(out, 'data.warc.gz'), tally);
}

/** `text/html` from `text/html; charset=utf-8`. */
export function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase() || 'application/octet-stream';
}
