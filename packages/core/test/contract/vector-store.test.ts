import { SqliteVecFamily, SqliteVecStore } from '@greenfinger/core/internal';
import {
  CONTRACT_DIMS,
  describeVectorStoreContract,
  describeVectorStoreFamilyContract,
} from './vector-store.contract.js';

describeVectorStoreContract(
  'SqliteVecStore',
  (root) => new SqliteVecStore({ root, collection: 'greenfinger_text', dims: CONTRACT_DIMS }),
);

// Every version gets an approximate index from its first point, so each contract test runs the index path.
describeVectorStoreContract(
  'SqliteVecStore with an approximate index',
  (root) => new SqliteVecStore({ root, collection: 'greenfinger_text', dims: CONTRACT_DIMS, annMinPoints: 1 }),
);

describeVectorStoreFamilyContract(
  'SqliteVecFamily',
  (root) => new SqliteVecFamily({ root, collection: 'greenfinger_text' }),
);

describeVectorStoreFamilyContract(
  'SqliteVecFamily with approximate indexes',
  (root) => new SqliteVecFamily({ root, collection: 'greenfinger_text', annMinPoints: 1 }),
);
