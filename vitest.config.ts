import { defineConfig } from 'vitest/config';

const conditions = ['@greenfinger/source', 'node', 'import', 'module', 'default'];
// Vitest passes ssr.resolve.conditions to the test processes as `node --conditions`; with `import` there,
// require('pg-pool') inside pg loads its ESM build and pg breaks. Keep only conditions Node's require can honour.
const ssrConditions = ['@greenfinger/source', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions: ssrConditions, externalConditions: ['@greenfinger/source'] } },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'e2e/**/*.test.ts'],
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
