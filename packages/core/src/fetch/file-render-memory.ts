import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from '../logger.js';
import {
  isPatternRecord,
  observe,
  type PatternRecord,
  type RenderMemory,
  type RenderObservation,
} from './render-memory.js';

/** Options of {@link FileRenderMemory}. */
export interface FileRenderMemoryOptions {
  /** How long a count waits in memory before its host's file is written (batched). @default 2000 */
  flushDelayMs?: number | undefined;
  /** Hosts held in memory at most; past it the least recently used written ones are let go. @default 10000 */
  maxHosts?: number | undefined;
  /** Patterns kept per host at most; past it the least recently seen is forgotten. @default 1000 */
  maxPatternsPerHost?: number | undefined;
  log?: Logger | undefined;
}

/** One host's file: `{ format: 1, host, patterns: { "/blog/*": PatternRecord } }`. */
interface HostFile {
  format: 1;
  host: string;
  patterns: Record<string, PatternRecord>;
}

interface HostEntry {
  patterns: Map<string, PatternRecord>;
  dirty: boolean;
}

/**
 * The default RenderMemory: one small JSON file per host, `system/render-memory/<xx>/<host>.json` (`xx`: two hex
 * characters of the host's sha256, so no folder holds more than a few thousand files). A host's file is read once,
 * on its first url; counts are kept in memory and the files of the hosts that changed are written together at most
 * every `flushDelayMs`, and on `flush()`/`close()`. Each write goes to a temporary file, is fsync'd, then renamed
 * over the old one: a crash leaves the previous file or the new one, never half of one. A file that does not read
 * as a host file (edited by hand) is logged and started afresh. Two processes on one data root each keep their own
 * counts; the last to write a host wins (the counts steer a heuristic, they are not records).
 */
export class FileRenderMemory implements RenderMemory {
  readonly dir: string;
  readonly #flushDelayMs: number;
  readonly #maxHosts: number;
  readonly #maxPatterns: number;
  readonly #log: Logger | undefined;
  /** Hosts read, least recently used first. */
  readonly #hosts = new Map<string, HostEntry>();
  readonly #loading = new Map<string, Promise<HostEntry>>();
  #timer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;
  /** Host files written so far (each write is one file). */
  writes = 0;

  constructor(dir: string, options: FileRenderMemoryOptions = {}) {
    this.dir = dir;
    this.#flushDelayMs = options.flushDelayMs ?? 2000;
    this.#maxHosts = options.maxHosts ?? 10_000;
    this.#maxPatterns = options.maxPatternsPerHost ?? 1000;
    this.#log = options.log;
    if (!(this.#flushDelayMs >= 0)) throw new TypeError('flushDelayMs: a number of ms ≥ 0');
    if (!Number.isInteger(this.#maxHosts) || this.#maxHosts < 1) throw new TypeError('maxHosts: an integer ≥ 1');
    if (!Number.isInteger(this.#maxPatterns) || this.#maxPatterns < 1) {
      throw new TypeError('maxPatternsPerHost: an integer ≥ 1');
    }
  }

  /** The file of one host. */
  fileOf(host: string): string {
    const xx = createHash('sha256').update(host).digest('hex').slice(0, 2);
    return join(this.dir, xx, `${encodeURIComponent(host)}.json`);
  }

  async get(host: string, pattern: string): Promise<PatternRecord | undefined> {
    return (await this.#entry(host)).patterns.get(pattern);
  }

  async record(host: string, pattern: string, observation: RenderObservation): Promise<void> {
    if (this.#closed) return;
    const entry = await this.#entry(host);
    const next = observe(entry.patterns.get(pattern), observation);
    // Re-inserted, so the map's order is least recently seen first.
    entry.patterns.delete(pattern);
    entry.patterns.set(pattern, next);
    if (entry.patterns.size > this.#maxPatterns) entry.patterns.delete(entry.patterns.keys().next().value as string);
    entry.dirty = true;
    this.#schedule();
  }

  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    const next = this.#flushing.then(() => this.#writeDirty());
    this.#flushing = next.catch(() => undefined);
    return next;
  }

  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
  }

  #schedule(): void {
    if (this.#timer || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, this.#flushDelayMs);
    this.#timer.unref();
  }

  async #entry(host: string): Promise<HostEntry> {
    const held = this.#hosts.get(host);
    if (held) {
      // Most recently used last: eviction takes the first.
      this.#hosts.delete(host);
      this.#hosts.set(host, held);
      return held;
    }
    let loading = this.#loading.get(host);
    if (!loading) {
      loading = this.#read(host).then((entry) => {
        this.#loading.delete(host);
        this.#hosts.set(host, entry);
        return entry;
      });
      this.#loading.set(host, loading);
    }
    return loading;
  }

  async #read(host: string): Promise<HostEntry> {
    const file = this.fileOf(host);
    let raw: string;
    try {
      raw = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        this.#log?.warn({ err, file }, 'render memory: cannot read a host file; starting it afresh');
      }
      return { patterns: new Map(), dirty: false };
    }
    const patterns = new Map<string, PatternRecord>();
    try {
      const parsed = JSON.parse(raw) as Partial<HostFile>;
      if (parsed.format !== 1 || typeof parsed.patterns !== 'object' || parsed.patterns === null) {
        throw new Error('not a render memory host file');
      }
      const entries = Object.entries(parsed.patterns).filter(([, r]) => isPatternRecord(r));
      entries.sort(([, a], [, b]) => a.lastSeen - b.lastSeen);
      for (const [pattern, r] of entries.slice(-this.#maxPatterns)) patterns.set(pattern, r);
    } catch (err) {
      this.#log?.warn({ err, file }, 'render memory: a host file does not read; starting it afresh');
    }
    return { patterns, dirty: false };
  }

  async #writeDirty(): Promise<void> {
    for (const [host, entry] of [...this.#hosts]) {
      if (!entry.dirty) continue;
      // Clean before the write: a count arriving while it is written marks the host again.
      entry.dirty = false;
      const body: HostFile = { format: 1, host, patterns: Object.fromEntries(entry.patterns) };
      try {
        await writeAtomically(this.fileOf(host), `${JSON.stringify(body)}\n`);
        this.writes++;
      } catch (err) {
        entry.dirty = true;
        this.#log?.warn({ err, host }, 'render memory: cannot write a host file; kept in memory, tried again later');
      }
    }
    // Past `maxHosts`, the least recently used hosts with nothing left to write are let go.
    for (const [host, entry] of this.#hosts) {
      if (this.#hosts.size <= this.#maxHosts) break;
      if (!entry.dirty) this.#hosts.delete(host);
    }
  }
}

/** Temporary file, fsync, rename: the file is the old one or the new one, whatever happens in between. */
async function writeAtomically(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
