import type { ByteSink } from './byte-sink.js';
import type { ExportSource } from './export-source.js';
import type { ExportTally } from './export-tally.js';

/**
 * `--format jsonl`: one JSON line per saved page — id, url, title, catalog, version, fetched date, content type,
 * status, text, Markdown (without front matter), pictures, and with `chunks` the embedded chunks with their vectors.
 */
export async function writeJsonl(
  source: ExportSource,
  sink: ByteSink,
  tally: ExportTally,
  options: { chunks?: boolean | undefined } = {},
): Promise<void> {
  const catalog = { id: source.catalog.id, name: source.catalog.name };
  for await (const row of source.rows()) {
    const text = await source.text(row);
    if (text === undefined) {
      tally.missing(row.url);
      continue;
    }
    const pictures = (await source.pictures(row)).map((p) => ({
      url: p.url,
      alt: p.alt,
      surroundingText: p.surroundingText,
      contentType: p.contentType,
      width: p.width,
      height: p.height,
      bytes: p.bytes,
    }));
    const line: Record<string, unknown> = {
      id: row.id,
      url: row.url,
      title: row.title,
      catalog,
      version: row.version,
      fetchedAt: row.fetchedAt,
      contentType: row.contentType,
      status: row.status,
      text,
      markdown: await source.markdownBody(row),
      pictures,
    };
    if (options.chunks) line.chunks = await source.chunks(row);
    await sink.write(`${JSON.stringify(line)}\n`);
    tally.page(pictures.length);
  }
}
