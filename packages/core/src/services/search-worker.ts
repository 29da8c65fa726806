import { execFileSync } from 'node:child_process';
import { readlinkSync, statSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { ComponentFactory } from '../compose/component-factory.js';
import type { Settings } from '../config.js';
import { CrawlerError } from '../errors.js';
import { silentLogger } from '../logger.js';
import { type SearchRequest, type SearchResponse, SearchService } from './search-service.js';

/** A search sent to the worker, and its answer. */
export interface SearchJob {
  id: number;
  req: SearchRequest;
}
export interface SearchAnswer {
  id: number;
  response?: SearchResponse;
  error?: { name: string; code?: string; message: string; fix?: string };
}

/**
 * A search thread: a search service of its own over the same data root and settings (its own component factory: the
 * index, the published-catalog record, the database for a blank query), answering one search at a time (an index
 * search is synchronous SQLite). When the published-catalog record changes (a publish, a deletion, a rebuild — each
 * replaces the file), the factory is reopened first, so no index file it held open is read after.
 */
const settings = (workerData as { settings: Readonly<Settings> }).settings;
let open: { factory: ComponentFactory; search: SearchService } | undefined;
let seen = '';
let queue: Promise<void> = Promise.resolve();

function registryStamp(f: ComponentFactory): string {
  const s = statSync(join(f.layout.user, 'index', 'catalogs.json'), { throwIfNoEntry: false });
  return s ? `${s.ino}:${s.mtimeMs}:${s.size}` : 'none';
}

function opened(): { factory: ComponentFactory; search: SearchService } {
  const factory = new ComponentFactory(settings, silentLogger());
  return { factory, search: new SearchService(factory) };
}

async function current(): Promise<SearchService> {
  open ??= opened();
  const stamp = registryStamp(open.factory);
  if (stamp !== seen) {
    if (seen !== '') {
      await open.factory.close().catch(() => undefined);
      open = opened();
    }
    seen = stamp;
  }
  return open.search;
}

async function answer(job: SearchJob): Promise<SearchAnswer> {
  try {
    return { id: job.id, response: await (await current()).search(job.req) };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    return {
      id: job.id,
      error: {
        name: e.name,
        message: e.message,
        ...(err instanceof CrawlerError ? { code: err.code, ...(err.fix ? { fix: err.fix } : {}) } : {}),
      },
    };
  }
}

/**
 * Searches come over a port of their own, handed over in the first message: other modules of core loaded here (the
 * extraction worker's) listen on parentPort for work of theirs, and must not take a search for it.
 */
function serve(port: MessagePort): void {
  port.on('message', (m: SearchJob | { close: true }) => {
    if ('close' in m) {
      queue = queue.then(async () => {
        await open?.factory.close().catch(() => undefined);
        port.close();
        parentPort?.close();
      });
      return;
    }
    queue = queue.then(async () => port.postMessage(await answer(m)));
  });
}

/**
 * Searches yield the processor to the rest of the server: on Linux a nice value belongs to the thread that sets it
 * (pid 0 = the calling thread), so this lowers only this thread. Two search threads at full speed on a 2-core
 * machine slowed a crawl of the same server threefold; at nice 10 by 51 %, at nice 19 by 20 % (`npm run bench --
 * api-load`, 4 Dec 2026), while health p99 stayed ~10 ms. The crawl and the event loop keep their share this way.
 * Where it is allowed, SCHED_IDLE goes further (idleScheduling); nice 19 stays for where it is not.
 */
const SEARCH_NICE = 19;
try {
  setPriority(0, SEARCH_NICE);
} catch {
  // not permitted here: searches keep the default priority
}
idleScheduling();

/**
 * On Linux, this thread also goes to the SCHED_IDLE policy (`chrt --idle`, no privilege needed to lower one's own
 * thread): a nice-19 thread still keeps a core until its time slice ends when a crawl thread wakes on it, and a
 * crawl is a chain of short wake-ups (fetch, extract, write), each delayed so. A thread under SCHED_IDLE is
 * preempted at once by any other that wakes, and the scheduler counts its core as free when placing one. A
 * handbook rebuild beside 32 searches, alternated in one process on a shared 2-core machine (6 Dec 2026, 5 rounds):
 * +31.5 % at nice 19, +19.9 % under SCHED_IDLE. The price: beside other busy programs, searches get less still.
 */
function idleScheduling(): void {
  if (process.platform !== 'linux') return;
  try {
    // /proc/thread-self -> "<pid>/task/<tid>": this thread's id, which chrt takes for --pid.
    const tid = readlinkSync('/proc/thread-self').split('/').pop() ?? '';
    if (!/^\d+$/.test(tid)) return;
    execFileSync('chrt', ['--idle', '--pid', '0', tid], { stdio: 'ignore', timeout: 5000 });
  } catch {
    // no chrt, or not permitted: nice 19 alone
  }
}

parentPort?.on('message', (m: { searchPort?: MessagePort } | null) => {
  if (m?.searchPort) serve(m.searchPort);
});
