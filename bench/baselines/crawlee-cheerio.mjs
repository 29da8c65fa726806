// Baseline: a minimal Crawlee CheerioCrawler. Same start url, same-hostname links, title + text only,
// maxConcurrency 16, in-memory storage. Prints one JSON line: {"crawler":"crawlee","pages":N}.
// Run: node bench/baselines/crawlee-cheerio.mjs <start-url> [concurrency]
import { CheerioCrawler, Configuration } from '@crawlee/cheerio';

const startUrl = process.argv[2];
const concurrency = Number(process.argv[3] ?? 16);
if (!startUrl) {
  console.error('usage: node bench/baselines/crawlee-cheerio.mjs <start-url> [concurrency]');
  process.exit(2);
}

let pages = 0;
let textChars = 0;
const crawler = new CheerioCrawler(
  {
    maxConcurrency: concurrency,
    async requestHandler({ $, enqueueLinks }) {
      const title = $('title').text().trim();
      const text = $('body').text().replace(/\s+/g, ' ').trim();
      pages++;
      textChars += title.length + text.length;
      await enqueueLinks({ strategy: 'same-hostname' });
    },
  },
  new Configuration({ persistStorage: false }),
);
const stats = await crawler.run([startUrl]);
console.log(
  JSON.stringify({
    crawler: 'crawlee',
    pages,
    textChars,
    failed: stats.requestsFailed,
    finished: stats.requestsFinished,
  }),
);
