#!/usr/bin/env node
import { main } from './program.js';

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
