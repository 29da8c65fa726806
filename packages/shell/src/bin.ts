#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { nodeFlags } from '@greenfinger/core/config';

// Memory over speed, a little: a crawl keeps little alive (about 25 MB of heap) but allocates many short-lived
// strings (pages, links), and V8's defaults let garbage grow to several times the live heap before collecting.
// A 4 MB young generation (instead of 16) and an old generation allowed to grow by half its live size between
// collections took the handbook crawl's peak RSS from ~230 MB to ~165 MB for ~7% more CPU (docs/performance.md).
// Set before the program is imported (only core's config module, zod and the error class are loaded before);
// GF_NODE_SEMI_SPACE_MB and GF_NODE_HEAP_GROWING_PERCENT override them (config.ts: nodeFlags).
for (const flag of nodeFlags()) setFlagsFromString(flag);
const { main } = await import('./program.js');

// A reader that went away (`greenfinger … | head`) is not an error worth a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`greenfinger: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
