import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { CrawlerError, StageError } from './errors.js';

/**
 * The compiled twin of a module run from TypeScript sources (`<package>/src/…/x.ts` → `<package>/dist/…/x.js`) when
 * that package's build is current — its build info (`dist/.tsbuildinfo`) written after every source file last
 * changed — else undefined. A worker started from sources (vitest) runs its twin instead of loading itself and its
 * dependencies through tsx: a crawl and a merge of the fixture site, in process, took 3.8 s of CPU instead of 6.3 s
 * (its extraction, index, blob and embedding threads, each with tsx's loader thread, and its document process).
 * A source file edited since the build makes it fall back to tsx, so a test never runs stale code.
 */
export function compiledTwin(callerUrl: string, file: string): string | undefined {
  const source = fileURLToPath(new URL(`${file}.ts`, callerUrl));
  const at = source.lastIndexOf('/src/');
  if (at < 0) return undefined;
  const root = source.slice(0, at);
  const twin = `${root}/dist/${source.slice(at + 5, -3)}.js`;
  const info = `${root}/dist/.tsbuildinfo`;
  try {
    if (!existsSync(twin) || !existsSync(info)) return undefined;
    const built = statSync(info).mtimeMs;
    for (const name of readdirSync(`${root}/src`, { recursive: true }) as string[]) {
      if (/\.tsx?$/.test(name) && statSync(`${root}/src/${name}`).mtimeMs > built) return undefined;
    }
    return twin;
  } catch {
    return undefined;
  }
}

/**
 * Start a worker thread running the module `file` (without extension) beside the calling module: the compiled
 * `.js` from dist, or — when the caller runs from TypeScript sources under vitest/tsx — its compiled twin when the
 * build is current ({@link compiledTwin}), else a boot script that registers tsx inside the worker (tsx's `--import`
 * hook registers on the main thread only) and imports the `.ts`.
 */
export function startWorker(callerUrl: string, file: string, workerData?: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`${file}.js`, callerUrl), { workerData });
  const twin = compiledTwin(callerUrl, file);
  if (twin) return new Worker(twin, { workerData });
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

/** Options of {@link forkWorkerProcess}. */
export interface WorkerProcessOptions {
  /** V8 old-generation heap of the process, MiB (`--max-old-space-size`). */
  heapMb: number;
}

/**
 * Loader hooks, registered after tsx's (so they run first), that load a dependency's ES module (`.mjs` under
 * node_modules) as it is instead of through tsx, which has nothing to compile there but reads every byte: pdf.js
 * (2 MB) took 1.5–3 s to load in a document process started from sources against 0.3 s from dist, paid once per
 * process — once per test file's crawl of a site with a PDF.
 */
const HOOKS = `import { readFile } from 'node:fs/promises';
export async function load(url, context, next) {
  if (url.startsWith('file:') && url.endsWith('.mjs') && url.includes('/node_modules/'))
    return { format: 'module', source: await readFile(new URL(url)), shortCircuit: true };
  return next(url, context);
}`;
const PACKAGES_AS_THEY_ARE = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`,
)}`;

/**
 * Start a child process running the module `file` (without extension) beside the calling module, with an IPC
 * channel (advanced serialization: typed arrays cross as they are). From dist it runs the compiled `.js`; from
 * TypeScript sources under vitest/tsx its compiled twin when the build is current ({@link compiledTwin}), else the
 * `.ts` with tsx's loader. Unlike a worker thread's resourceLimits,
 * which V8 enforces only on a best-effort basis (one array grown past the cap aborts the whole process — measured
 * on Node 20.20 with a PDF that holds one huge array), a process that runs out of heap takes only itself down.
 * Its stdout is dropped and its stderr piped (the caller reads the reason of a crash there).
 */
export function forkWorkerProcess(callerUrl: string, file: string, options: WorkerProcessOptions): ChildProcess {
  const execArgv = [`--max-old-space-size=${options.heapMb}`];
  let entry: string;
  const twin = callerUrl.endsWith('.ts') ? compiledTwin(callerUrl, file) : undefined;
  if (twin) entry = twin;
  else if (callerUrl.endsWith('.ts')) {
    let loader: string;
    try {
      loader = pathToFileURL(
        join(dirname(createRequire(callerUrl).resolve('tsx/package.json')), 'dist/loader.mjs'),
      ).href;
    } catch (cause) {
      throw new CrawlerError('CONFIG', `running ${file} from TypeScript sources needs tsx`, {
        cause,
        fix: 'install the dev dependencies (tsx), or build with tsc and run dist',
      });
    }
    execArgv.push('--import', loader, '--import', PACKAGES_AS_THEY_ARE);
    entry = fileURLToPath(new URL(`${file}.ts`, callerUrl));
  } else entry = fileURLToPath(new URL(`${file}.js`, callerUrl));
  return fork(entry, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
}

/**
 * One worker thread serving more than one component: each tags its messages with a `channel` and reads only the
 * replies of its own channel. The thread is kept out of the event loop's count (unref) except while some component
 * holds it for work in flight, so an idle thread never keeps the process alive and a busy one always does.
 * A run lends its extraction thread to the index writer this way: one V8 isolate instead of two.
 */
export class SharedThread {
  readonly worker: Worker;
  #holds = 0;

  constructor(worker: Worker) {
    this.worker = worker;
    worker.unref();
  }

  post(message: object, transfer?: ArrayBuffer[]): void {
    this.worker.postMessage(message, transfer);
  }

  /** Messages of one channel (`undefined`: untagged messages). */
  on(channel: string | undefined, handler: (message: never) => void): void {
    this.worker.on('message', (m: { channel?: string } | null) => {
      if ((m?.channel ?? undefined) === channel) handler(m as never);
    });
  }

  /** The thread failed or exited; `exited` is false for an uncaught error inside it. */
  onFailure(handler: (err: Error, exited: boolean) => void): void {
    this.worker.on('error', (err) => handler(err, false));
    this.worker.on('exit', (code) => handler(new Error(`the worker thread exited with code ${code}`), true));
  }

  /** Work in flight: the process must wait for this thread. */
  hold(): void {
    if (this.#holds++ === 0) this.worker.ref();
  }

  release(): void {
    if (this.#holds > 0 && --this.#holds === 0) this.worker.unref();
  }

  terminate(): Promise<number> {
    return this.worker.terminate();
  }
}

/** What every reply on a ThreadChannel carries: the request's id, and the error message when it failed. */
export interface ChannelReply {
  id: number;
  error?: string;
}

/**
 * Request and reply over one channel of a SharedThread: each request gets an id and resolves with the reply of that
 * id; a reply with `error` rejects as a StageError of `stage`. The thread is held while requests are in flight. When
 * the thread fails, the requests in flight and every later one reject with that failure.
 */
export class ThreadChannel<Req extends object, Rep extends ChannelReply> {
  readonly thread: SharedThread;
  readonly #channel: string;
  readonly #stage: string;
  readonly #pending = new Map<number, { resolve: (reply: Rep) => void; reject: (err: Error) => void }>();
  #next = 0;
  #failure: Error | undefined;

  constructor(thread: SharedThread, channel: string, stage: string) {
    this.thread = thread;
    this.#channel = channel;
    this.#stage = stage;
    thread.on(channel, (reply: Rep) => {
      const p = this.#pending.get(reply.id);
      if (!p) return;
      this.#pending.delete(reply.id);
      thread.release();
      if (reply.error !== undefined) p.reject(new StageError(stage, reply.error));
      else p.resolve(reply);
    });
    // An exit with nothing in flight is the end of a run (or of the pool that lent the thread): nothing to reject,
    // but a request sent later must fail instead of waiting for a thread that is gone.
    thread.onFailure((err) => {
      this.#failure ??= new StageError(this.#stage, `the thread serving ${this.#channel} stopped: ${err.message}`, err);
      for (const p of this.#pending.values()) {
        thread.release();
        p.reject(this.#failure);
      }
      this.#pending.clear();
    });
  }

  /** Why the thread stopped serving this channel, once it has (every request since rejects with it). */
  get failure(): Error | undefined {
    return this.#failure;
  }

  send(req: Req, transfer?: ArrayBuffer[]): Promise<Rep> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = this.#next++;
    return new Promise<Rep>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.thread.hold();
      this.thread.post({ ...req, channel: this.#channel, id }, transfer);
    });
  }
}
