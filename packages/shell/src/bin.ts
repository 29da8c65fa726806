#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';

// A young generation of 4 MB semi-spaces instead of 16: a crawl allocates many short-lived strings (pages,
// links), and the smaller nursery keeps peak RSS about 40 MB lower for a few percent more scavenges.
// Set before anything else is imported, so the heap has not grown yet. GF_NODE_SEMI_SPACE_MB overrides it.
setFlagsFromString(`--max-semi-space-size=${Number(process.env.GF_NODE_SEMI_SPACE_MB) || 4}`);
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
