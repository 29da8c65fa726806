import type { DecodedImage } from './png-decode.js';

/** The 6×6×6 colour cube a sixel thumbnail is drawn with: level 0..5 per channel. */
const LEVELS = 6;

/** The cube index of a colour (each channel rounded to the nearest of 6 levels). */
export function cubeIndex(r: number, g: number, b: number): number {
  const q = (v: number) => Math.round((v / 255) * (LEVELS - 1));
  return q(r) * LEVELS * LEVELS + q(g) * LEVELS + q(b);
}

/**
 * A DEC sixel image of `image` scaled down (nearest pixel) to at most `maxWidth` pixels wide: raster attributes,
 * the palette entries used (`#i;2;r;g;b` in percent), then bands of six rows, one pass per colour (`$` returns to
 * the band's start, `-` moves to the next band), runs of four or more as `!n`. Pixels under half opacity are left
 * to the background (P2 = 1).
 */
export function sixelImage(image: DecodedImage, maxWidth: number): string {
  const scale = Math.min(1, maxWidth / image.width);
  const w = Math.max(1, Math.round(image.width * scale));
  const h = Math.max(1, Math.round(image.height * scale));
  const idx = new Int16Array(w * h);
  for (let y = 0; y < h; y++) {
    const sy = Math.min(image.height - 1, Math.floor(y / scale));
    for (let x = 0; x < w; x++) {
      const sx = Math.min(image.width - 1, Math.floor(x / scale));
      const o = (sy * image.width + sx) * 4;
      const px = image.rgba;
      idx[y * w + x] = px[o + 3]! < 128 ? -1 : cubeIndex(px[o]!, px[o + 1]!, px[o + 2]!);
    }
  }
  const used = [...new Set(idx)].filter((i) => i >= 0).sort((a, b) => a - b);
  const pct = (level: number) => Math.round((level * 100) / (LEVELS - 1));
  let out = `\x1bP0;1;0q"1;1;${w};${h}`;
  for (const i of used) {
    out += `#${i};2;${pct(Math.floor(i / 36))};${pct(Math.floor(i / 6) % 6)};${pct(i % 6)}`;
  }
  for (let top = 0; top < h; top += 6) {
    const passes: string[] = [];
    for (const colour of used) {
      let line = '';
      let any = false;
      let run = 0;
      let prev = '';
      const flush = () => {
        if (run === 0) return;
        line += run >= 4 ? `!${run}${prev}` : prev.repeat(run);
      };
      for (let x = 0; x < w; x++) {
        let bits = 0;
        for (let k = 0; k < 6 && top + k < h; k++) if (idx[(top + k) * w + x] === colour) bits |= 1 << k;
        if (bits) any = true;
        const ch = String.fromCharCode(63 + bits);
        if (ch === prev) run++;
        else {
          flush();
          prev = ch;
          run = 1;
        }
      }
      flush();
      if (any) passes.push(`#${colour}${line.replace(/\?+$|!\d+\?$/, '')}`);
    }
    out += `${passes.join('$')}-`;
  }
  return `${out}\x1b\\`;
}
