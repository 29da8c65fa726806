import { createHash } from 'node:crypto';
import { hammingDistance, simhash64 } from '../dedup/simhash.js';

// What counts as a change of a page's article text (issue 27 item 4): the text with its volatile parts — dates and
// times, relative times, counters, session and CSRF tokens — replaced by placeholders, then compared. What the
// content extractor drops (navigation, footers with little text, rotating blocks of links) is already gone.

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const WEEKDAY = '(?:mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?';
const UNIT = '(?:sec(?:ond)?s?|min(?:ute)?s?|h(?:ou)?rs?|hours?|days?|weeks?|months?|years?)';
const COUNTED =
  '(?:views?|visits?|visitors?|reads?|readers?|comments?|replies|likes?|shares?|followers?|downloads?|votes?|online|hits?|impressions?|clicks?|subscribers?)';

/** Each volatile pattern and its placeholder, applied in order (longest forms first). */
const VOLATILE: ReadonlyArray<[RegExp, string]> = [
  // Tokens: named ones (csrf, session, nonce …=value), UUIDs, long hex or base64-like runs with digits and letters.
  [/\b(?:csrf|xsrf|session|sess|sid|token|nonce|jsessionid|phpsessid)[\w-]*\s*[:=]\s*\S+/gi, '⟨token⟩'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '⟨token⟩'],
  [/\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{24,}\b/g, '⟨token⟩'],
  // ISO timestamps and dates, numeric dates, dates with month names, times of day.
  [/\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b/g, '⟨date⟩'],
  [/\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b/g, '⟨date⟩'],
  [new RegExp(`\\b(?:${WEEKDAY},?\\s+)?\\d{1,2}(?:st|nd|rd|th)?\\s+${MONTH}\\.?,?(?:\\s+\\d{4})?\\b`, 'gi'), '⟨date⟩'],
  [new RegExp(`\\b(?:${WEEKDAY},?\\s+)?${MONTH}\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?,?(?:\\s+\\d{4})?\\b`, 'gi'), '⟨date⟩'],
  // A weekday alone only by its whole name ("sat", "sun", "wed" are words too).
  [/\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b/gi, '⟨date⟩'],
  [/\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?(?:\s*(?:UTC|GMT|Z|[A-Z]{2,4}T))?\b/gi, '⟨time⟩'],
  // Relative times: "3 minutes ago", "an hour ago", "in 5 days", "just now", "yesterday".
  [new RegExp(`\\b(?:\\d+|an?|one|a few)\\s+${UNIT}\\s+ago\\b`, 'gi'), '⟨when⟩'],
  [new RegExp(`\\bin\\s+(?:\\d+|an?)\\s+${UNIT}\\b`, 'gi'), '⟨when⟩'],
  [/\b(?:just now|yesterday|today|tomorrow|moments? ago)\b/gi, '⟨when⟩'],
  // Counters: a number that counts views, comments, likes …, either side of its word.
  [new RegExp(`\\b\\d[\\d,.\\s]*[kKmM]?\\s+${COUNTED}\\b`, 'g'), '⟨count⟩'],
  [new RegExp(`\\b${COUNTED}\\s*:?\\s*\\d[\\d,.]*[kKmM]?\\b`, 'gi'), '⟨count⟩'],
];

/** The text with its volatile parts replaced by placeholders and its white space collapsed. */
export function normalizeVolatile(text: string): string {
  let out = text;
  for (const [pattern, placeholder] of VOLATILE) out = out.replace(pattern, placeholder);
  return out.replace(/\s+/g, ' ').trim();
}

/** The checksum that decides whether a page changed: sha256 of its normalised text (64 hex characters). */
export function normalizedChecksum(text: string): string {
  return createHash('sha256').update(normalizeVolatile(text)).digest('hex');
}

/** How two texts of one page compare. */
export type TextChange =
  /** The very same text. */
  | 'same'
  /** Only volatile parts differ (or the normalised texts are within the near-duplicate distance). */
  | 'volatile'
  /** The article changed. */
  | 'changed';

/**
 * Compare the text a version holds for a page with the text fetched now. `distance` is the catalog's near-duplicate
 * threshold (`changeDistance`): normalised texts whose simhashes differ in at most that many bits count as unchanged
 * (0: only identical normalised texts do).
 */
export function compareText(before: string, after: string, distance = 0): TextChange {
  if (before === after) return 'same';
  const a = normalizeVolatile(before);
  const b = normalizeVolatile(after);
  if (a === b) return 'volatile';
  if (distance > 0 && hammingDistance(simhash64(a), simhash64(b)) <= distance) return 'volatile';
  return 'changed';
}

/** The `why` of a page whose text differs only in volatile parts. */
export const ONLY_VOLATILE = 'unchanged: only volatile text differed';
