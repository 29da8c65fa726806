import { gunzipSync } from 'node:zlib';
import { FetchError } from '../errors.js';
import { decodeBody } from './charset.js';
import type { FetchResult } from './extractor.js';

/** What a gzipped text file (a `sitemap.xml.gz`) may inflate to: the protocol's 50 MB cap on a sitemap, and some. */
export const MAX_INFLATED_TEXT = 64 * 1024 * 1024;

/**
 * The text of an answer read as text (robots.txt, sitemaps): decoded as its charset says, and inflated first when
 * the file itself is gzipped (`.xml.gz`, served as `application/gzip` or `application/octet-stream`, not as a
 * Content-Encoding the fetcher already undid), under MAX_INFLATED_TEXT.
 * @throws FetchError `too-large` past the cap, `decoding` when the gzip is corrupt
 */
export function textOf(result: Pick<FetchResult, 'text' | 'body' | 'contentType' | 'finalUrl'>): string {
  const { body } = result;
  if (body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b) {
    let inflated: Buffer;
    try {
      inflated = gunzipSync(body, { maxOutputLength: MAX_INFLATED_TEXT });
    } catch (err) {
      const tooLarge = (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE';
      throw new FetchError(
        tooLarge
          ? `${result.finalUrl} inflates to more than ${MAX_INFLATED_TEXT} bytes`
          : `${result.finalUrl} is not a readable gzip file: ${(err as Error).message}`,
        { reason: tooLarge ? 'too-large' : 'decoding', retryable: false, cause: err },
      );
    }
    return decodeBody(inflated, 'text/xml').text;
  }
  return result.text ?? body.toString('utf8');
}
