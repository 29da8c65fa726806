/**
 * A custom acceptor chosen by name on a catalog: register a UrlPathAcceptor under a name, then a catalog that lists
 * that name in `acceptors` runs it after the built-in ones. Here it refuses every url whose path holds a segment
 * given on the command line (e.g. `library`), and the run report counts the refusals under its name.
 *
 *   node --import tsx examples/custom-acceptor.ts <site-url> <data-dir> <segment>
 */
import { acceptorRegistry, Greenfinger, type UrlPathAcceptor } from '@greenfinger/core';

const [siteUrl, dataDir, segment = 'library'] = process.argv.slice(2);
if (!siteUrl || !dataDir) {
  console.error('usage: node --import tsx examples/custom-acceptor.ts <site-url> <data-dir> [segment]');
  process.exit(2);
}

acceptorRegistry.register(
  'skip-segment',
  (): UrlPathAcceptor => ({
    name: 'skip-segment',
    check: ({ url }) =>
      new URL(url).pathname.split('/').includes(segment)
        ? {
            accept: false,
            acceptor: 'skip-segment',
            outcome: 'REJECTED_FILTER',
            reason: `path has the segment /${segment}/`,
          }
        : { accept: true },
  }),
);

const gf = await Greenfinger.open({ settings: { dataStore: dataDir } });
try {
  const report = await gf.crawler.crawl({
    url: siteUrl,
    settings: {
      outputs: ['file', 'index'],
      // Every built-in optional acceptor, then ours: a catalog names the ones it runs.
      acceptors: ['asset-check', 'robots-txt', 'depth', 'path-patterns', 'skip-segment'],
    },
  });
  console.log(JSON.stringify(report, null, 2));
} finally {
  await gf.close();
}
