import { STATUS_CODES } from 'node:http';
import type { StoredResponse } from '../model.js';
import type { FetchResult } from './extractor.js';

/**
 * The status line and headers of an HTTP answer as its page keeps them (crawler_resource.response); null for an
 * answer that did not come over HTTP (a `file:` source). Set-Cookie values, joined by a newline when the headers
 * were flattened, become one pair each again.
 */
export function storedResponseOf(url: string, result: Pick<FetchResult, 'status' | 'headers'>): StoredResponse | null {
  if (!url.startsWith('http:') && !url.startsWith('https:')) return null;
  const headers: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(result.headers)) {
    if (name === 'set-cookie') for (const one of value.split('\n')) headers.push([name, one]);
    else headers.push([name, value]);
  }
  return { protocol: 'HTTP/1.1', status: result.status, reason: STATUS_CODES[result.status] ?? '', headers };
}
