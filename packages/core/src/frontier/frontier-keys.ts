import { createHash } from 'node:crypto';
import { CrawlerError } from '../errors.js';
import type { FrontierEntry } from './frontier.js';

/** Urls longer than this are keyed by their sha256 in `u:`. */
const MAX_URL_KEY = 256;

const scratch = Buffer.alloc(8);
const ZERO_PRIORITY = encodePriorityRaw(0);

function encodePriorityRaw(priority: number): string {
  scratch.writeDoubleBE(priority === 0 ? 0 : priority);
  if ((scratch[0] as number) & 0x80) {
    for (let i = 0; i < 8; i++) scratch[i] = ~(scratch[i] as number) & 0xff;
  } else {
    scratch[0] = (scratch[0] as number) | 0x80;
  }
  return scratch.toString('hex');
}

/** 16 hex characters that sort as the number does (IEEE 754 with the sign folded in). */
export function encodePriority(priority: number): string {
  if (priority === 0) return ZERO_PRIORITY;
  if (!Number.isFinite(priority)) {
    throw new CrawlerError('BAD_INPUT', `frontier priority must be a finite number, got ${priority}`, {
      fix: 'pass an integer priority (lower is sooner) or leave it out',
    });
  }
  return encodePriorityRaw(priority);
}

/** The queue position `{priority}{sequence}`: 30 characters, sorting by priority then sequence. */
export function queuePosition(priority: number, sequence: number): string {
  return encodePriority(priority) + sequence.toString(16).padStart(14, '0');
}

/** The `u:` key of a url: the url itself, or its sha256 when long. */
export function urlKey(url: string): string {
  return url.length <= MAX_URL_KEY ? `u:=${url}` : `u:#${createHash('sha256').update(url).digest('hex')}`;
}

/** Reject an entry the queue cannot hold. */
export function checkEntry(entry: FrontierEntry): void {
  if (typeof entry?.url !== 'string' || entry.url.length === 0) {
    throw new CrawlerError('BAD_INPUT', 'frontier entry has no url', {
      fix: 'pass { url, depth } with a non-empty url',
    });
  }
  if (!Number.isFinite(entry.depth)) {
    throw new CrawlerError('BAD_INPUT', `frontier entry ${entry.url} has no numeric depth`, {
      fix: 'pass { url, depth } with depth a number (0 for a start url)',
    });
  }
}

/**
 * Compact JSON of an entry for the `f:` and `i:` values: `[url, depth, referrer, priority]`, and for a redirect
 * target two more, `redirects` and `redirectChain`; a url found written otherwise adds `foundAs` seventh (after a
 * 0 and [] when it is no redirect target). Entries written before redirects were carried (four elements) still
 * decode, as entries without a chain; entries written before `foundAs` (six at most), as entries without it.
 */
export function encodeEntry(entry: FrontierEntry): string {
  const base: unknown[] = [entry.url, entry.depth, entry.referrer ?? null, entry.priority ?? null];
  if (entry.redirects || entry.foundAs) base.push(entry.redirects ?? 0, entry.redirectChain ?? []);
  if (entry.foundAs) base.push(entry.foundAs);
  return JSON.stringify(base);
}

export function decodeEntry(value: string): FrontierEntry {
  const [url, depth, referrer, priority, redirects, chain, foundAs] = JSON.parse(value) as [
    string,
    number,
    string | null,
    number | null,
    number | undefined,
    string[] | undefined,
    string | undefined,
  ];
  const entry: FrontierEntry = { url, depth };
  if (referrer !== null) entry.referrer = referrer;
  if (priority !== null) entry.priority = priority;
  if (typeof redirects === 'number' && redirects > 0) {
    entry.redirects = redirects;
    entry.redirectChain = Array.isArray(chain) ? chain : [];
  }
  if (typeof foundAs === 'string' && foundAs !== '') entry.foundAs = foundAs;
  return entry;
}
