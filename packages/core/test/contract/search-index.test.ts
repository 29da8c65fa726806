import { OffThreadIndex, type SearchIndex, SqliteFtsIndex } from '@greenfinger/core';
import { describeSearchIndexContract } from './search-index.contract.js';

describeSearchIndexContract('SqliteFtsIndex', (root) => new SqliteFtsIndex({ root, prefix: 'greenfinger' }));

// The crawl's writer: upserts on a worker thread, everything else on the reader. Its close() leaves the reader
// open (the reader belongs to the caller), so the suite's close() closes both here.
describeSearchIndexContract('OffThreadIndex over SqliteFtsIndex', (root) => {
  const reader = new SqliteFtsIndex({ root, prefix: 'greenfinger' });
  const writer = new OffThreadIndex(reader, { root, prefix: 'greenfinger' });
  const index: SearchIndex = {
    name: writer.name,
    upsert: (docs) => writer.upsert(docs),
    deleteVersion: (c, v) => writer.deleteVersion(c, v),
    countVersion: (c, v) => writer.countVersion(c, v),
    purge: (c) => writer.purge(c),
    search: (q) => writer.search(q),
    close: async () => {
      await writer.close();
      await reader.close();
    },
  };
  return index;
});
