import { defineConfig } from 'vitest/config';

const conditions = ['@greenfinger/source', 'node', 'import', 'module', 'default'];
// Vitest passes ssr.resolve.conditions to the test processes as `node --conditions`; with `import` there,
// require('pg-pool') inside pg loads its ESM build and pg breaks. Keep only conditions Node's require can honour.
const ssrConditions = ['@greenfinger/source', 'node', 'development|production'];

/**
 * Files that run alone, after the others: several processes whose liveness is timed (cluster members renew a 3 s
 * heartbeat and a leader lease), Chromium and process-tree counts, a terminal under tmux, and bounds of a few
 * hundred milliseconds on a slow server or a signal. Beside another test file on 2 cores they would measure the
 * neighbour, not themselves.
 */
const alone = [
  'packages/cluster/test/**/*.test.ts',
  'e2e/page-journey.test.ts',
  'e2e/render-sigint.test.ts',
  'e2e/shell-prompt.test.ts',
  'e2e/bad-input.test.ts',
  'e2e/resume-after-kill.test.ts',
  'packages/core/test/integration/browser-*.test.ts',
  'packages/core/test/integration/adaptive-rendering.test.ts',
  'packages/core/test/integration/hostile-site.test.ts',
  'packages/core/test/integration/hostile-slow-loris.test.ts',
  'packages/core/test/unit/politeness-pace.test.ts',
];

/** Two test files at once everywhere else (GF_TEST_WORKERS to change it): the suite's wall time on 2 cores. */
const workers = Number(process.env.GF_TEST_WORKERS ?? 2);

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions: ssrConditions, externalConditions: ['@greenfinger/source'] } },
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        test: {
          name: 'together',
          include: ['packages/*/test/**/*.test.ts', 'e2e/**/*.test.ts'],
          exclude: alone,
          maxWorkers: workers,
        },
      },
      {
        extends: true,
        test: { name: 'alone', include: alone, maxWorkers: 1 },
      },
    ],
  },
});
