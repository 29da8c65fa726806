import { SqliteVecStore } from '@greenfinger/core';
import { CONTRACT_DIMS, describeVectorStoreContract } from './vector-store.contract.js';

describeVectorStoreContract(
  'SqliteVecStore',
  (root) => new SqliteVecStore({ root, collection: 'greenfinger_text', dims: CONTRACT_DIMS }),
);

// Every version gets an approximate index from its first point, so each contract test runs the index path.
describeVectorStoreContract(
  'SqliteVecStore with an approximate index',
  (root) => new SqliteVecStore({ root, collection: 'greenfinger_text', dims: CONTRACT_DIMS, annMinPoints: 1 }),
);
