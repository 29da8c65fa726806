import { ConfigError } from '../errors.js';
import { normalizeUrl } from './normalize.js';

const FIX = 'give a full http(s) url such as https://example.com/';

/**
 * Checks a url a user typed (CLI flag, API field) and returns its normal form.
 * Adds nothing silently: `example.com` (no scheme) is refused, not guessed into `http://example.com/`.
 *
 * @param input the text as given
 * @param field the option it came from, named in the error (e.g. `--url`)
 * @throws ConfigError naming `field`, for a malformed, non-http(s) or host-less url
 */
export function parseUserUrl(input: string, field: string): string {
  const text = input.trim();
  if (text === '') throw new ConfigError(field, 'is empty', FIX);
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new ConfigError(field, `"${text}" is not a valid url`, FIX, cause);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(field, `"${text}" uses ${url.protocol} but only http and https can be crawled`, FIX);
  }
  if (url.hostname === '' || !/^https?:\/\/[^/?#\\]/i.test(text)) {
    throw new ConfigError(field, `"${text}" has no host after http:// or https://`, FIX);
  }
  const normalized = normalizeUrl(text);
  if (normalized === undefined) throw new ConfigError(field, `"${text}" is not a crawlable url`, FIX);
  return normalized;
}
