import type { ClassicLevel } from 'classic-level';
import { CrawlerError } from '../errors.js';
import type { FrontierEntry } from './frontier.js';
import { checkEntry, decodeEntry } from './frontier-keys.js';
import type { LevelStoreLabel } from './open-level.js';

/** `m:` holds `{next sequence},{size}`, written with every batch. */
export const META = 'm:';
/** The `u:` value of a url acked (handled) during this run; '' = queued. */
export const DONE = 'd';

/** A queue position: 16 hex characters of priority, 14 of sequence. */
const POSITION = /^[0-9a-f]{30}$/;

/**
 * The consistency check of a frontier on open, where LevelDB's own checks stop (it verifies a table block only
 * when it decodes it, and skips a write-ahead log record that fails its CRC): every key is of a known kind and
 * well formed, every queued and leased entry decodes, no position carries a sequence at or past the stored next
 * sequence, and the stored size equals the entries in `f:`. Reads every key once.
 * @returns the counters to continue from
 * @throws CrawlerError CORRUPT naming the store, the first inconsistency and the fix
 */
export async function checkFrontier(
  db: ClassicLevel<string, string>,
  dir: string,
  label: LevelStoreLabel,
): Promise<{ seq: number; size: number }> {
  const corrupt = (what: string) =>
    new CrawlerError('CORRUPT', `frontier store at ${dir} is inconsistent: ${what}`, { fix: label.corruptFix });
  const meta = await db.get(META);
  let seq = 0;
  let size = -1;
  if (meta !== undefined) {
    const parts = meta.split(',');
    [seq, size] = parts.map(Number) as [number, number];
    if (parts.length !== 2 || !Number.isSafeInteger(seq) || !Number.isSafeInteger(size) || seq < 0 || size < 0) {
      throw new CrawlerError('CORRUPT', `frontier store at ${dir} has unreadable counters`, { fix: label.corruptFix });
    }
  }
  let queued = 0;
  let maxSeq = -1;
  const it = db.iterator();
  try {
    for (;;) {
      const rows = await it.nextv(1024);
      if (rows.length === 0) break;
      for (const [key, value] of rows) {
        const kind = key.slice(0, 2);
        if (kind === 'f:' || kind === 'i:') {
          const pos = key.slice(2);
          if (!POSITION.test(pos)) throw corrupt(`a malformed queue key ${JSON.stringify(key.slice(0, 80))}`);
          let entry: FrontierEntry;
          try {
            entry = decodeEntry(value);
            checkEntry(entry);
          } catch {
            throw corrupt(`the entry at ${key} does not decode`);
          }
          const s = Number.parseInt(pos.slice(16), 16);
          if (s > maxSeq) maxSeq = s;
          if (kind === 'f:') queued++;
        } else if (kind === 'u:') {
          const ok = key.startsWith('u:=') ? key.length > 3 : /^u:#[0-9a-f]{64}$/.test(key);
          if (!ok || (value !== '' && value !== DONE))
            throw corrupt(`a malformed url key ${JSON.stringify(key.slice(0, 80))}`);
        } else if (kind === 'c:') {
          try {
            JSON.parse(value);
          } catch {
            throw corrupt('the run checkpoint does not decode');
          }
        } else if (kind !== 'm:' && kind !== 'j:') {
          throw corrupt(`a key of no known kind ${JSON.stringify(key.slice(0, 80))}`);
        }
      }
    }
  } finally {
    await it.close();
  }
  if (meta === undefined) return { seq: maxSeq + 1, size: queued };
  if (maxSeq >= seq) throw corrupt(`an entry has sequence ${maxSeq}, past the stored next sequence ${seq}`);
  if (queued !== size) throw corrupt(`the stored size is ${size} but ${queued} entries are queued`);
  return { seq, size };
}
