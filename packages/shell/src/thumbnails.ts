import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { type DecodedImage, decodePng } from './png-decode.js';
import { sixelImage } from './sixel.js';

/**
 * Thumbnails in the prompt's result list: the picture itself, drawn inline by the terminal's own image protocol
 * (kitty graphics, iTerm2 inline images, or sixel) when the terminal says it has one, else the picture's url.
 * Everything here is pure but for reading the stored file: the escape sequences are unit-tested byte for byte.
 */

/** An inline image protocol a terminal speaks. */
export type InlineImageProtocol = 'kitty' | 'iterm2' | 'sixel';

/** Width of a thumbnail, in terminal cells (kitty, iTerm2) or pixels (sixel). */
export const THUMBNAIL_CELLS = 16;
export const THUMBNAIL_PIXELS = 128;
/** A stored picture larger than this is shown by its url: the terminal would take long to draw it. */
export const THUMBNAIL_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The protocol the terminal speaks, from its environment, or null (then urls are shown). kitty: TERM xterm-kitty
 * or KITTY_WINDOW_ID, or TERM_PROGRAM ghostty (which implements it); iTerm2: TERM_PROGRAM iTerm.app, WezTerm or
 * LC_TERMINAL iTerm2; sixel: a TERM naming sixel, or TERM_PROGRAM / TERM of a terminal that draws sixel by default
 * (foot, mlterm, contour). Nothing is asked of the terminal itself: an answer would arrive on the prompt's input.
 */
export function inlineImageProtocol(env: Record<string, string | undefined>): InlineImageProtocol | null {
  const term = (env.TERM ?? '').toLowerCase();
  const program = (env.TERM_PROGRAM ?? '').toLowerCase();
  if (term === 'dumb') return null;
  if (term === 'xterm-kitty' || env.KITTY_WINDOW_ID || program === 'ghostty') return 'kitty';
  if (program === 'iterm.app' || program === 'wezterm' || (env.LC_TERMINAL ?? '').toLowerCase() === 'iterm2')
    return 'iterm2';
  if (term.includes('sixel') || ['foot', 'mlterm', 'contour'].some((t) => term.startsWith(t) || program === t))
    return 'sixel';
  return null;
}

/** The raster format of a picture's bytes, by its magic number. */
export function pictureFormat(bytes: Uint8Array): 'png' | 'jpeg' | 'gif' | 'webp' | null {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return 'gif';
  if (b.length >= 12 && b[0] === 0x52 && b[1] === 0x49 && b[8] === 0x57 && b[9] === 0x45) return 'webp';
  return null;
}

/**
 * kitty graphics protocol: a PNG transmitted and placed at once (`a=T,f=100`), `cells` columns wide (the height
 * follows the picture's proportions), base64 in chunks of at most 4096 bytes, `m=1` on every chunk but the last.
 */
export function kittyImage(png: Uint8Array, cells = THUMBNAIL_CELLS): string {
  const data = Buffer.from(png).toString('base64');
  const chunks: string[] = [];
  for (let i = 0; i < data.length; i += 4096) chunks.push(data.slice(i, i + 4096));
  if (chunks.length === 0) chunks.push('');
  return chunks
    .map((c, i) => {
      const more = i < chunks.length - 1 ? 1 : 0;
      const keys = i === 0 ? `a=T,f=100,q=2,c=${cells},m=${more}` : `m=${more}`;
      return `\x1b_G${keys};${c}\x1b\\`;
    })
    .join('');
}

/** iTerm2 inline image (OSC 1337 File): any format the terminal decodes, `cells` wide, proportions kept. */
export function iterm2Image(bytes: Uint8Array, name: string, cells = THUMBNAIL_CELLS): string {
  const b64name = Buffer.from(name).toString('base64');
  const data = Buffer.from(bytes).toString('base64');
  return `\x1b]1337;File=name=${b64name};size=${bytes.length};width=${cells};preserveAspectRatio=1;inline=1:${data}\x07`;
}

/**
 * The escape sequence that draws `bytes` in a terminal of `protocol`, or null when that terminal cannot be given
 * this format (kitty takes PNG here; sixel needs pixels, decoded here from PNG only; iTerm2 decodes any raster).
 */
export function inlineImage(protocol: InlineImageProtocol, bytes: Uint8Array, name: string): string | null {
  const format = pictureFormat(bytes);
  if (!format) return null;
  if (protocol === 'iterm2') return iterm2Image(bytes, name);
  if (format !== 'png') return null;
  if (protocol === 'kitty') return kittyImage(bytes);
  let image: DecodedImage;
  try {
    image = decodePng(bytes);
  } catch {
    return null;
  }
  return sixelImage(image, THUMBNAIL_PIXELS);
}

/** A picture as a result shows it: its stored file (under `user/`) and its own url. */
export interface ShownPicture {
  path: string;
  url: string;
}

/**
 * The line under a result that shows its picture: the thumbnail when the terminal draws one and the stored file
 * can be read and drawn, else `picture: <url>` (with how many more the page shows).
 */
export function pictureLine(
  picture: ShownPicture,
  more: number,
  protocol: InlineImageProtocol | null,
  userRoot: string,
  read: (file: string) => Uint8Array | null = readPicture,
): string {
  const fallback = `     picture: ${picture.url}${more > 0 ? ` (and ${more} more)` : ''}`;
  if (!protocol) return fallback;
  const bytes = read(isAbsolute(picture.path) ? picture.path : join(userRoot, picture.path));
  const name = picture.url.split('/').pop() ?? 'picture';
  const drawn = bytes ? inlineImage(protocol, bytes, name) : null;
  return drawn ? `     ${drawn}` : fallback;
}

/** A stored picture's bytes, or null when it is missing or too big to draw quickly. */
function readPicture(file: string): Uint8Array | null {
  try {
    if (statSync(file).size > THUMBNAIL_MAX_BYTES) return null;
    return readFileSync(file);
  } catch {
    return null;
  }
}
