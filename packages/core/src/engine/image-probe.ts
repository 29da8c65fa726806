/** Width and height read from the first bytes of a PNG, GIF, JPEG or WebP; undefined when unknown. */
export function probeImageSize(b: Buffer): { width: number; height: number; ext: string } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47)
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20), ext: 'png' };
  if (b.length >= 10 && b.toString('latin1', 0, 3) === 'GIF')
    return { width: b.readUInt16LE(6), height: b.readUInt16LE(8), ext: 'gif' };
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    const kind = b.toString('latin1', 12, 16);
    if (kind === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3), ext: 'webp' };
    if (kind === 'VP8 ')
      return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff, ext: 'webp' };
    if (kind === 'VP8L') {
      const bits = b.readUInt32LE(21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1, ext: 'webp' };
    }
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    let guard = 0;
    while (i + 9 < b.length && guard++ < 10_000) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1] as number;
      const len = b.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7), ext: 'jpg' };
      }
      i += 2 + len;
    }
    return undefined;
  }
  if (b.length >= 5 && /^\s*<(\?xml|svg)/.test(b.toString('utf8', 0, Math.min(b.length, 256)))) {
    return undefined;
  }
  return undefined;
}

const EXT_BY_TYPE: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/jpg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'image/avif': 'avif',
  'image/bmp': 'bmp',
  'image/x-icon': 'ico',
  'image/vnd.microsoft.icon': 'ico',
};

/** File extension for an image from its sniffed format, its content type, or its url. */
export function imageExtension(contentType: string, url: string, sniffed?: string): string {
  if (sniffed) return sniffed;
  const byType = EXT_BY_TYPE[contentType.split(';')[0]?.trim().toLowerCase() ?? ''];
  if (byType) return byType;
  const m = /\.([a-z0-9]{2,5})$/i.exec(new URL(url).pathname);
  return m?.[1]?.toLowerCase() ?? 'bin';
}
