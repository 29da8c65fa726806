import { RE2JS } from 're2js';

/**
 * A user's pattern as it is run: RE2 semantics (re2js, a pure-JS port of RE2), so matching takes time linear in the
 * text whatever the pattern. A backtracking engine can take exponential time on `(a+)+$` against a page of a's and
 * one '!', and it runs on the event loop: one catalog setting could freeze the server.
 */
export interface UserPattern {
  readonly source: string;
  test(text: string): boolean;
}

const cache = new Map<string, UserPattern>();

/**
 * Compile a pattern (case-insensitive) with the linear-time engine. RE2 has no look-around and no back-references.
 * @throws Error naming what is not supported when the pattern does not compile
 */
export function compileUserPattern(pattern: string): UserPattern {
  const re = RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  return { source: pattern, test: (text: string) => re.matcher(text).find() };
}

/** Why a pattern cannot run (RE2 syntax), or undefined when it compiles. */
export function patternProblem(pattern: string): string | undefined {
  try {
    compileUserPattern(pattern);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A catalog's pattern compiled once (case-insensitive, linear time); the settings checked that it compiles. */
export function cachedRegex(pattern: string): UserPattern {
  let r = cache.get(pattern);
  if (!r) {
    if (cache.size >= 1000) cache.clear();
    r = compileUserPattern(pattern);
    cache.set(pattern, r);
  }
  return r;
}
