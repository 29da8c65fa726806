const cache = new Map<string, RegExp>();

/** A catalog's pattern compiled once (case-insensitive); the settings checked that it compiles. */
export function cachedRegex(pattern: string): RegExp {
  let r = cache.get(pattern);
  if (!r) {
    if (cache.size >= 1000) cache.clear();
    r = new RegExp(pattern, 'i');
    cache.set(pattern, r);
  }
  return r;
}
