import { LocalBlobStore } from '@greenfinger/core';
import { describeBlobStoreContract } from './blob-store.contract.js';

describeBlobStoreContract('LocalBlobStore', async (root) => {
  const store = new LocalBlobStore(root);
  return { store, dispose: () => store.close() };
});
