/** Query parameters whose values are secrets wherever they appear in a url. */
const SECRET_PARAMS = /^(pass(word)?|pwd|secret|token|access_token|api[_-]?key|key|auth|credentials?)$/i;
const MASK = '***';

/**
 * A url with its credentials masked: the password of `scheme://user:password@host` (parsed as a url, so a password
 * holding `@` or `:` is masked whole) and the values of `?password=`-like parameters. Text that is not a url with
 * credentials comes back unchanged.
 */
export function maskUrl(text: string): string {
  if (!text.includes('://')) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return maskUnparsed(text);
  }
  let changed = false;
  if (url.password) {
    url.password = MASK;
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_PARAMS.test(name)) {
      url.searchParams.set(name, MASK);
      changed = true;
    }
  }
  return changed ? url.toString().replace(/\*\*\*|%2A%2A%2A/g, MASK) : text;
}

/** A string that does not parse as a url: everything between `//user:` and the last `@` before the path is masked. */
function maskUnparsed(text: string): string {
  return text
    .replace(/(\/\/[^:/?#@\s]*):[^/?#\s]*@/g, `$1:${MASK}@`)
    .replace(/([?&](?:pass(?:word)?|pwd|secret|token|api[_-]?key|key)=)[^&#\s]*/gi, `$1${MASK}`);
}

/** Every string inside `value` (objects and arrays walked, depth-bounded) with url credentials masked. */
export function maskUrlsDeep<T>(value: T, depth = 0): T {
  if (typeof value === 'string') return maskUrl(value) as T;
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => maskUrlsDeep(v, depth + 1)) as T;
  if (value instanceof Date || Buffer.isBuffer(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = maskUrlsDeep(v, depth + 1);
  return out as T;
}
