import { SqliteVecStore } from '@greenfinger/core';
import { CONTRACT_DIMS, describeVectorStoreContract } from './vector-store.contract.js';

describeVectorStoreContract(
  'SqliteVecStore',
  (root) => new SqliteVecStore({ root, collection: 'greenfinger_text', dims: CONTRACT_DIMS }),
);
