import { describe } from 'vitest';
import { openStore } from '../../src/store/registry.js';
import { runStoreContract } from './contract.js';
import { freshSchema, TEST_DATABASE_URL } from './postgres-fixtures.js';

describe.skipIf(!TEST_DATABASE_URL)('postgres', () => {
  runStoreContract({ name: 'postgres', newStore: () => openStore({ kind: 'postgres', url: TEST_DATABASE_URL!, schema: freshSchema() }) });
});
