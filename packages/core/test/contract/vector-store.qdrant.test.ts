import { randomBytes } from 'node:crypto';
import { QdrantFamily } from '@greenfinger/core/internal';
import { describe } from 'vitest';
import {
  CONTRACT_DIMS,
  describeVectorStoreContract,
  describeVectorStoreFamilyContract,
} from './vector-store.contract.js';

/**
 * The vector store contracts, word for word the embedded store's, against a real Qdrant server: only when
 * GF_TEST_QDRANT_URL is set (scripts/test-external.sh starts one with Docker), reported skipped otherwise; never a
 * stand-in. Each test root gets collections of its own (`gft_<random>_<dims>`), dropped after the test.
 * GF_TEST_QDRANT_API_KEY: the server's key, when it has one.
 */
const url = process.env.GF_TEST_QDRANT_URL ?? '';
const apiKey = process.env.GF_TEST_QDRANT_API_KEY || undefined;

const collections = new Map<string, string>();
function collectionOf(root: string): string {
  let name = collections.get(root);
  if (!name) {
    name = `gft_${randomBytes(6).toString('hex')}`;
    collections.set(root, name);
  }
  return name;
}
const familyOf = (root: string) => new QdrantFamily({ url, apiKey, collection: collectionOf(root) });
const dispose = async (root: string): Promise<void> => {
  await familyOf(root).dropCollections();
  collections.delete(root);
};

describe.skipIf(!url)(`Qdrant at GF_TEST_QDRANT_URL (${url || 'unset: skipped'})`, () => {
  describeVectorStoreContract('QdrantStore', (root) => familyOf(root).open(CONTRACT_DIMS), { dispose });
  describeVectorStoreFamilyContract('QdrantFamily', (root) => familyOf(root), { dispose });
});
