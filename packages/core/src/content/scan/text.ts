/** Text helpers shared by the scan's collectors. */

export const WS = /\s+/g;

/** Weighted length: CJK characters (kana, ideographs, hangul) count 4, as one carries about a word. */
export function weightedLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (
      c >= 0x3040 &&
      (c <= 0x30ff ||
        (c >= 0x3400 && c <= 0x4dbf) ||
        (c >= 0x4e00 && c <= 0x9fff) ||
        (c >= 0xac00 && c <= 0xd7af) ||
        (c >= 0xf900 && c <= 0xfaff))
    ) {
      n += 3;
    }
  }
  return n;
}

/** Whitespace runs collapsed to one space, ends trimmed. */
export function clean(s: string): string {
  return s.replace(WS, ' ').trim();
}

/** Trim to about `max` characters at a word boundary. */
export function trimText(s: string, max = 300): string {
  if (s.length <= max) return s;
  const cut = s.lastIndexOf(' ', max);
  return `${s.slice(0, cut > max * 0.6 ? cut : max).trimEnd()}…`;
}

/** A width/height attribute as a positive integer, else undefined. */
export function dim(v: string | undefined): number | undefined {
  if (!v) return undefined;
  const n = Number.parseInt(v, 10);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
