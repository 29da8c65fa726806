import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CrawlerError } from './errors.js';

/**
 * Start a worker thread running the module `file` (without extension) beside the calling module: the compiled
 * `.js` from dist, or — when the caller runs from TypeScript sources under vitest/tsx — a boot script that
 * registers tsx inside the worker (tsx's `--import` hook registers on the main thread only) and imports the `.ts`.
 */
export function startWorker(callerUrl: string, file: string, workerData?: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`${file}.js`, callerUrl), { workerData });
  let tsxApi: string;
  try {
    tsxApi = pathToFileURL(
      join(dirname(createRequire(callerUrl).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
    ).href;
  } catch (cause) {
    throw new CrawlerError('CONFIG', `running ${file} from TypeScript sources needs tsx`, {
      cause,
      fix: 'install the dev dependencies (tsx), or build with tsc and run dist',
    });
  }
  const entry = new URL(`${file}.ts`, callerUrl).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData });
}
