import { randomUUID } from 'node:crypto';
import { basename } from 'node:path';
import { EsVectorFamily } from '@greenfinger/core/internal';
import { afterAll, describe } from 'vitest';
import {
  CONTRACT_DIMS,
  describeVectorStoreContract,
  describeVectorStoreFamilyContract,
} from './vector-store.contract.js';

/**
 * The VectorStore and VectorStoreFamily contracts, unchanged, against a real Elasticsearch at GF_TEST_ES_URL;
 * reported skipped when it is not set — no server stands in for it. Each test's root gives its own collection name.
 */
const url = process.env.GF_TEST_ES_URL;
const run = randomUUID().slice(0, 8);
const collectionOf = (root: string) =>
  `gftest${run}${basename(root)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')}_text`;

describe.skipIf(!url)('Elasticsearch vector store (GF_TEST_ES_URL)', () => {
  // A store opened on its own: closing it closes its client (the family's would otherwise stay open).
  describeVectorStoreContract('EsVectorStore', (root) => {
    const family = new EsVectorFamily({ url: url as string, collection: collectionOf(root) });
    const store = family.open(CONTRACT_DIMS);
    const close = store.close.bind(store);
    store.close = async () => {
      await close();
      await family.close();
    };
    return store;
  });

  describeVectorStoreFamilyContract(
    'EsVectorFamily',
    (root) => new EsVectorFamily({ url: url as string, collection: collectionOf(root) }),
  );

  afterAll(async () => {
    const { Client } = await import('@elastic/elasticsearch');
    const client = new Client({ node: url as string });
    // By name: a wildcard delete is refused where action.destructive_requires_name is on (the default since 8.0).
    const rows = (await client.cat.indices({ index: `gftest${run}*`, format: 'json' })) as Array<{ index?: string }>;
    const names = rows.map((r) => r.index).filter((n): n is string => Boolean(n));
    if (names.length) await client.indices.delete({ index: names, ignore_unavailable: true });
    await client.close();
  });
});
