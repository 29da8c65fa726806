import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { ElasticsearchIndex } from '@greenfinger/core/internal';
import { afterAll, describe } from 'vitest';
import { describeSearchIndexContract } from './search-index.contract.js';
import { describePictureSearchContract } from './search-index.pictures.contract.js';

/**
 * The SearchIndex contract, unchanged, against a real Elasticsearch at GF_TEST_ES_URL (scripts/test-external.sh
 * starts one where Docker is available); reported skipped when it is not set — no server stands in for it.
 * Each test's root gives its own index prefix, so a reopen with the same root sees the same indices.
 */
const url = process.env.GF_TEST_ES_URL;
const run = randomUUID().slice(0, 8);
const prefixOf = (root: string) =>
  `gftest-${run}-${basename(root)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')}`;

describe.skipIf(!url)('Elasticsearch search index (GF_TEST_ES_URL)', () => {
  describeSearchIndexContract(
    'ElasticsearchIndex',
    (root) => new ElasticsearchIndex({ url: url as string, prefix: prefixOf(root) }),
  );
  describePictureSearchContract(
    'ElasticsearchIndex',
    (root) => new ElasticsearchIndex({ url: url as string, prefix: prefixOf(root) }),
  );

  afterAll(async () => {
    // The indices of this run go with it.
    const { Client } = await import('@elastic/elasticsearch');
    const client = new Client({ node: url as string });
    // By name: a wildcard delete is refused where action.destructive_requires_name is on (the default since 8.0).
    const rows = (await client.cat.indices({ index: `gftest-${run}-*`, format: 'json' })) as Array<{ index?: string }>;
    const names = rows.map((r) => r.index).filter((n): n is string => Boolean(n));
    if (names.length) await client.indices.delete({ index: names, ignore_unavailable: true });
    await client.close();
  });
});
