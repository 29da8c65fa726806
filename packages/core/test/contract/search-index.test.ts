import { SqliteFtsIndex } from '@greenfinger/core';
import { describeSearchIndexContract } from './search-index.contract.js';

describeSearchIndexContract('SqliteFtsIndex', (root) => new SqliteFtsIndex({ root, prefix: 'greenfinger' }));
