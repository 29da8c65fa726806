/**
 * The longest original form kept on a url's ledger row (`foundAs`), in characters: the longest url the REST API
 * takes (2048). A longer form is cut there, ending in `…`.
 */
export const MAX_FOUND_AS = 2048;

/** A scheme at the start of a reference: the reference is absolute, and is kept exactly as written. */
const ABSOLUTE = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** What the WHATWG url parser removes from anywhere in a reference before reading it. */
const TAB_OR_NEWLINE = /[\t\n\r]/g;

/**
 * A link as it was written, made absolute: an absolute reference as it is (its letter case, default port, fragment
 * and parameters kept; tabs and newlines removed), a relative one resolved against `base`. undefined when it does
 * not resolve.
 */
export function writtenForm(href: string, base: string | URL | undefined): string | undefined {
  const ref = href.trim().replace(TAB_OR_NEWLINE, '');
  if (ref === '') return undefined;
  if (ABSOLUTE.test(ref)) return ref;
  if (base === undefined) return undefined;
  try {
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}

/**
 * What a url's ledger row keeps of the form `written` it was found in, once normalised to `url`: undefined when
 * they are the same, else `written`, cut at {@link MAX_FOUND_AS} characters.
 */
export function foundAs(written: string | undefined, url: string): string | undefined {
  if (written === undefined || written === url) return undefined;
  return written.length <= MAX_FOUND_AS ? written : `${written.slice(0, MAX_FOUND_AS - 1)}…`;
}
