const tables = new Map<string, Map<string, Buffer>>();

/**
 * windows-1252 bytes 0x80..0x9F (WHATWG index). Node 20's TextDecoder('windows-1252') decodes them as
 * ISO-8859-1 C1 controls instead, so this table is the reference for both directions.
 */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

/** Decode windows-1252 bytes correctly (unlike Node 20's TextDecoder for this label). */
export function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += String.fromCodePoint(b >= 0x80 && b < 0xa0 ? CP1252_HIGH[b - 0x80]! : b);
  return out;
}

function windows1252Table(): Map<string, Buffer> {
  const t = new Map<string, Buffer>();
  for (let b = 0x80; b <= 0xff; b++) t.set(decodeWindows1252(Uint8Array.of(b)), Buffer.of(b));
  return t;
}

function candidates(encoding: string): number[][] {
  if (encoding === 'shift_jis') {
    const out: number[][] = [];
    for (let b = 0xa1; b <= 0xdf; b++) out.push([b]);
    for (let lead = 0x81; lead <= 0xfc; lead++) {
      if (lead >= 0xa0 && lead <= 0xdf) continue;
      for (let trail = 0x40; trail <= 0xfc; trail++) if (trail !== 0x7f) out.push([lead, trail]);
    }
    return out;
  }
  throw new TypeError(`encodeLegacy: unsupported encoding '${encoding}' (use windows-1252 or shift_jis)`);
}

function table(encoding: string): Map<string, Buffer> {
  let t = tables.get(encoding);
  if (t) return t;
  if (encoding === 'windows-1252') {
    t = windows1252Table();
    tables.set(encoding, t);
    return t;
  }
  t = new Map();
  const decoder = new TextDecoder(encoding, { fatal: true });
  for (const bytes of candidates(encoding)) {
    let ch: string;
    try {
      ch = decoder.decode(Uint8Array.from(bytes));
    } catch {
      continue;
    }
    if ([...ch].length === 1 && !t.has(ch)) t.set(ch, Buffer.from(bytes));
  }
  tables.set(encoding, t);
  return t;
}

/**
 * Encode text in a legacy charset (windows-1252 or shift_jis) using the reverse of the WHATWG index,
 * so what the crawler decodes is exactly the original text. Throws on a character the charset lacks.
 */
export function encodeLegacy(text: string, encoding: 'windows-1252' | 'shift_jis'): Buffer {
  const t = table(encoding);
  const parts: Buffer[] = [];
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code < 0x80) {
      parts.push(Buffer.from([code]));
      continue;
    }
    const bytes = t.get(ch);
    if (!bytes) throw new TypeError(`encodeLegacy: '${ch}' (U+${code.toString(16)}) has no ${encoding} encoding`);
    parts.push(bytes);
  }
  return Buffer.concat(parts);
}
