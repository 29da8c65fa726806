import { CrawlerError } from '../errors.js';

/** Position after the last hit of a page, in the order (score desc, id asc). */
export interface SearchAfter {
  score: number;
  id: string;
}

/** base64url JSON, opaque to callers. */
export function encodeCursor(after: SearchAfter): string {
  return Buffer.from(JSON.stringify({ s: after.score, i: after.id }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): SearchAfter {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (value && typeof value === 'object') {
      const { s, i, q } = value as { s?: unknown; i?: unknown; q?: unknown };
      // `q`: a question's cursor (services/words-question.ts), not one of the all-words order.
      if (q === undefined && typeof s === 'number' && Number.isFinite(s) && typeof i === 'string')
        return { score: s, id: i };
    }
  } catch {
    // reported below
  }
  throw new CrawlerError('BAD_INPUT', 'the search cursor is not one this server issued', {
    fix: 'pass the nextCursor of the previous page unchanged, or omit it to start from the first page',
  });
}
