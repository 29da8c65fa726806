import { ExtractPool, OffThreadIndex, type SearchIndex, SqliteFtsIndex } from '@greenfinger/core/internal';
import { describeSearchIndexContract } from './search-index.contract.js';
import { describePictureImageVectorContract } from './search-index.image-vectors.contract.js';
import { describePictureSearchContract } from './search-index.pictures.contract.js';

describeSearchIndexContract('SqliteFtsIndex', (root) => new SqliteFtsIndex({ root, prefix: 'greenfinger' }));
describePictureSearchContract('SqliteFtsIndex', (root) => new SqliteFtsIndex({ root, prefix: 'greenfinger' }));
describePictureImageVectorContract('SqliteFtsIndex', (root) => new SqliteFtsIndex({ root, prefix: 'greenfinger' }));

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
    deleteResource: (c, v, id, dry) => writer.deleteResource(c, v, id, dry),
    purge: (c) => writer.purge(c),
    search: (q) => writer.search(q),
    stats: () => writer.stats(),
    optimize: (c, v) => writer.optimize(c, v),
    close: async () => {
      await writer.close();
      await reader.close();
    },
  };
  return index;
});

// The crawl's arrangement on a machine with workers: the index's own writer (openWriter) lives on a thread lent by
// the extraction pool, which keeps extracting on it meanwhile.
describeSearchIndexContract('SqliteFtsIndex.openWriter on a thread lent by ExtractPool', (root) => {
  const reader = new SqliteFtsIndex({ root, prefix: 'greenfinger' });
  const pool = new ExtractPool({ workers: 1 });
  const writer = reader.openWriter({ thread: pool.lendThread() });
  const index: SearchIndex = {
    name: writer.name,
    upsert: async (docs) => {
      // Extraction and index writes interleave on the one thread; neither sees the other's replies.
      const [content] = await Promise.all([
        pool.extract('<html><title>t</title><body><p>Some text here.</p></body></html>', 'http://x.test/'),
        writer.upsert(docs),
      ]);
      if (content.title !== 't') throw new Error(`extraction answered ${JSON.stringify(content.title)}`);
    },
    deleteVersion: (c, v) => writer.deleteVersion(c, v),
    countVersion: (c, v) => writer.countVersion(c, v),
    deleteResource: (c, v, id, dry) => writer.deleteResource(c, v, id, dry),
    purge: (c) => writer.purge(c),
    search: (q) => writer.search(q),
    stats: () => writer.stats(),
    optimize: (c, v) => writer.optimize(c, v),
    close: async () => {
      await writer.close();
      await pool.close();
      await reader.close();
    },
  };
  return index;
});
