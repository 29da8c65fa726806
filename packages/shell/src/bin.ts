#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// Memory over speed, a little: a crawl keeps little alive (about 25 MB of heap) but allocates many short-lived
// strings (pages, links), and V8's defaults let garbage grow to several times the live heap before collecting.
// A 4 MB young generation (instead of 16) and an old generation allowed to grow by half its live size between
// collections took the handbook crawl's peak RSS from ~230 MB to ~165 MB for ~7% more CPU (docs/performance.md).
// Set before anything else is imported. GF_NODE_SEMI_SPACE_MB and GF_NODE_HEAP_GROWING_PERCENT override them.
setFlagsFromString(`--max-semi-space-size=${Number(process.env.GF_NODE_SEMI_SPACE_MB) || 4}`);
setFlagsFromString(`--heap-growing-percent=${Number(process.env.GF_NODE_HEAP_GROWING_PERCENT) || 50}`);
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
