/**
 * Replace a component: crawl a site with a fetcher that wraps the default one and counts its requests, and an extra
 * output channel that appends the url of every saved page to a file. Prints the run report as JSON on stdout and
 * one line about the two components on stderr.
 *
 *   node --import tsx examples/replace-a-component.ts <site-url> <data-dir>
 */
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CrawledPage, type Extractor, Greenfinger, type OutputChannel } from '@greenfinger/core';

const [siteUrl, dataDir] = process.argv.slice(2);
if (!siteUrl || !dataDir) {
  console.error('usage: node --import tsx examples/replace-a-component.ts <site-url> <data-dir>');
  process.exit(2);
}

/** A fetcher that hands every request to the default one and counts it. */
let requests = 0;
function counting(inner: Extractor): Extractor {
  return {
    name: `counting(${inner.name})`,
    fetch: (url, options) => {
      requests++;
      return inner.fetch(url, options);
    },
    close: () => inner.close(),
  };
}

/** An output channel of our own: one line per saved page, written after file → index → vector. */
const urlList = join(dataDir, 'saved-urls.txt');
let lines = 0;
const urlListChannel: OutputChannel = {
  layer: 'url-list',
  async write(page: CrawledPage) {
    await appendFile(urlList, `${page.resource.url}\n`);
    lines++;
  },
  async flush() {},
  async deleteVersion() {
    return { count: 0, bytes: 0 };
  },
  counts: () => ({ written: lines, failed: 0 }),
  async close() {},
};

const gf = await Greenfinger.open({
  settings: { dataStore: dataDir },
  components: {
    fetcher: (ctx) => counting(ctx.createDefault()),
    outputChannels: () => [urlListChannel],
  },
});
try {
  const report = await gf.crawler.crawl({ url: siteUrl, settings: { outputs: ['file', 'index'] } });
  console.log(JSON.stringify(report, null, 2));
  console.error(`the counting fetcher made ${requests} requests; ${lines} saved urls are listed in ${urlList}`);
} finally {
  await gf.close();
}
