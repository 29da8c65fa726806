/**
 * The Readability content extractor chosen by setting: the catalog field `contentExtractor` (the CLI's
 * `--content-extractor readability`) picks Mozilla Readability instead of the default one-pass `html` extractor, on
 * the same worker threads. Prints the run report as JSON, then the title and first article line of a few saved pages
 * on stderr.
 *
 *   node --import tsx examples/readability-extractor.ts <site-url> <data-dir>
 */
import { Greenfinger } from '@greenfinger/core';

const [siteUrl, dataDir] = process.argv.slice(2);
if (!siteUrl || !dataDir) {
  console.error('usage: node --import tsx examples/readability-extractor.ts <site-url> <data-dir>');
  process.exit(2);
}

const gf = await Greenfinger.open({ settings: { dataStore: dataDir } });
try {
  const report = await gf.crawler.crawl({
    url: siteUrl,
    settings: { contentExtractor: 'readability', outputs: ['file', 'index'], maxPages: 20 },
  });
  console.log(JSON.stringify(report, null, 2));
  const db = await gf.database();
  for await (const rows of db.resources.iterateResources(report.catalogId, report.version, 5)) {
    for (const row of rows) {
      const text = (await gf.blobs.getText(row.textPath)) ?? '';
      console.error(`${row.title} — ${text.split('\n').find((l) => l.trim()) ?? ''}`.slice(0, 160));
    }
    break;
  }
} finally {
  await gf.close();
}
