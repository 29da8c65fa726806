import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { encodePng } from '../../core/test/support/png.js';
import { formatResults } from '../src/format.js';
import { decodePng } from '../src/png-decode.js';
import { cubeIndex, sixelImage } from '../src/sixel.js';
import {
  inlineImage,
  inlineImageProtocol,
  iterm2Image,
  kittyImage,
  pictureFormat,
  pictureLine,
} from '../src/thumbnails.js';

const ESC = '\x1b';
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46]);

describe('the terminal protocol, from the environment', () => {
  it('tells kitty, iTerm2 and sixel terminals apart, and nothing else', () => {
    expect(inlineImageProtocol({ TERM: 'xterm-kitty' })).toBe('kitty');
    expect(inlineImageProtocol({ TERM: 'xterm-256color', KITTY_WINDOW_ID: '1' })).toBe('kitty');
    expect(inlineImageProtocol({ TERM: 'xterm-ghostty', TERM_PROGRAM: 'ghostty' })).toBe('kitty');
    expect(inlineImageProtocol({ TERM: 'xterm-256color', TERM_PROGRAM: 'iTerm.app' })).toBe('iterm2');
    expect(inlineImageProtocol({ TERM: 'screen', LC_TERMINAL: 'iTerm2' })).toBe('iterm2');
    expect(inlineImageProtocol({ TERM: 'xterm-256color', TERM_PROGRAM: 'WezTerm' })).toBe('iterm2');
    expect(inlineImageProtocol({ TERM: 'foot' })).toBe('sixel');
    expect(inlineImageProtocol({ TERM: 'mlterm' })).toBe('sixel');
    expect(inlineImageProtocol({ TERM: 'xterm-sixel' })).toBe('sixel');
    expect(inlineImageProtocol({ TERM: 'xterm-256color', TERM_PROGRAM: 'vscode' })).toBeNull();
    expect(inlineImageProtocol({ TERM: 'xterm' })).toBeNull();
    expect(inlineImageProtocol({ TERM: 'dumb', KITTY_WINDOW_ID: '1' })).toBeNull();
    expect(inlineImageProtocol({})).toBeNull();
  });
});

describe('escape sequences', () => {
  const png = encodePng(4, 2, (x) => (x < 2 ? [255, 0, 0] : [0, 0, 255]));

  it('kitty: one PNG transmitted and placed, base64 in chunks of 4096 with m=1 but on the last', () => {
    const b64 = Buffer.from(png).toString('base64');
    expect(kittyImage(png, 16)).toBe(`${ESC}_Ga=T,f=100,q=2,c=16,m=0;${b64}${ESC}\\`);
    const big = new Uint8Array(7000).fill(7);
    const seq = kittyImage(big, 10);
    const chunks = [...seq.matchAll(/\x1b_G([^;]*);([^\x1b]*)\x1b\\/g)];
    expect(chunks.map((c) => c[1])).toEqual(['a=T,f=100,q=2,c=10,m=1', 'm=1', 'm=0']);
    expect(chunks.map((c) => c[2]!.length)).toEqual([4096, 4096, Buffer.from(big).toString('base64').length - 8192]);
    expect(Buffer.from(chunks.map((c) => c[2]).join(''), 'base64')).toEqual(Buffer.from(big));
  });

  it('iTerm2: OSC 1337 File with the name, size and width in cells', () => {
    const name = Buffer.from('rose.jpg').toString('base64');
    expect(iterm2Image(JPEG, 'rose.jpg', 16)).toBe(
      `${ESC}]1337;File=name=${name};size=10;width=16;preserveAspectRatio=1;inline=1:${Buffer.from(JPEG).toString('base64')}\x07`,
    );
  });

  it('sixel: raster attributes, the palette used, one pass per colour in each band of six rows', () => {
    const red = cubeIndex(255, 0, 0);
    const blue = cubeIndex(0, 0, 255);
    expect([red, blue]).toEqual([180, 5]);
    // 4×2: red on the left half, blue on the right; both rows in the first band (bits 1 and 2: '?' + 3 = 'B').
    expect(sixelImage(decodePng(png), 128)).toBe(
      `${ESC}P0;1;0q"1;1;4;2#5;2;0;0;100#180;2;100;0;0#5??BB$#180BB-${ESC}\\`,
    );
  });

  it('sixel: scales down to the width asked, runs of four or more as !n, transparent pixels left out', () => {
    const wide = encodePng(40, 12, () => [0, 0, 0]);
    const seq = sixelImage(decodePng(wide), 20);
    expect(seq).toContain('"1;1;20;6');
    expect(seq).toContain('#0!20~-');
    const clear = { width: 2, height: 1, rgba: Uint8Array.from([0, 0, 0, 0, 255, 255, 255, 255]) };
    expect(sixelImage(clear, 10)).toBe(`${ESC}P0;1;0q"1;1;2;1#215;2;100;100;100#215?@-${ESC}\\`);
  });

  it('decodes PNG colour types: palette with transparency, and grey at 1 bit', () => {
    const chunk = (type: string, data: Buffer) => {
      const head = Buffer.alloc(8);
      head.writeUInt32BE(data.length, 0);
      head.write(type, 4, 'latin1');
      return Buffer.concat([head, data, Buffer.alloc(4)]);
    };
    const ihdr = (w: number, h: number, depth: number, colour: number) => {
      const b = Buffer.alloc(13);
      b.writeUInt32BE(w, 0);
      b.writeUInt32BE(h, 4);
      b.set([depth, colour, 0, 0, 0], 8);
      return b;
    };
    const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const palette = Buffer.concat([
      sig,
      chunk('IHDR', ihdr(2, 1, 8, 3)),
      chunk('PLTE', Buffer.from([10, 20, 30, 40, 50, 60])),
      chunk('tRNS', Buffer.from([0])),
      chunk('IDAT', deflateSync(Buffer.from([0, 0, 1]))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    expect([...decodePng(palette).rgba]).toEqual([10, 20, 30, 0, 40, 50, 60, 255]);
    const grey = Buffer.concat([
      sig,
      chunk('IHDR', ihdr(3, 1, 1, 0)),
      chunk('IDAT', deflateSync(Buffer.from([0, 0b10100000]))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    expect([...decodePng(grey).rgba]).toEqual([255, 255, 255, 255, 0, 0, 0, 255, 255, 255, 255, 255]);
    // Filters: encodePng writes filter 0; a Sub-filtered row decodes to the same pixels.
    const sub = Buffer.concat([
      sig,
      chunk('IHDR', ihdr(2, 1, 8, 2)),
      chunk('IDAT', deflateSync(Buffer.from([1, 10, 20, 30, 5, 5, 5]))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    expect([...decodePng(sub).rgba]).toEqual([10, 20, 30, 255, 15, 25, 35, 255]);
  });

  it('draws what each terminal can take and nothing else', () => {
    expect(pictureFormat(png)).toBe('png');
    expect(pictureFormat(JPEG)).toBe('jpeg');
    expect(inlineImage('iterm2', JPEG, 'a.jpg')).toMatch(/^\x1b\]1337;File=/);
    expect(inlineImage('kitty', JPEG, 'a.jpg')).toBeNull();
    expect(inlineImage('sixel', JPEG, 'a.jpg')).toBeNull();
    expect(inlineImage('kitty', png, 'a.png')).toMatch(/^\x1b_Ga=T,f=100/);
    expect(inlineImage('sixel', png, 'a.png')).toMatch(/^\x1bP0;1;0q/);
    expect(inlineImage('iterm2', Uint8Array.from([1, 2, 3]), 'a.bin')).toBeNull();
  });
});

describe('the picture line under a result', () => {
  const pic = { path: 'images/ab/cd.png', url: 'http://127.0.0.1:9/pics/rose.png' };
  const png = encodePng(2, 2, () => [0, 128, 0]);

  it('falls back to the url without a protocol, for a missing file, or a format the terminal cannot draw', () => {
    const never = () => {
      throw new Error('read without a protocol');
    };
    expect(pictureLine(pic, 0, null, '/u', never)).toBe('     picture: http://127.0.0.1:9/pics/rose.png');
    expect(pictureLine(pic, 2, 'kitty', '/u', () => null)).toBe(
      '     picture: http://127.0.0.1:9/pics/rose.png (and 2 more)',
    );
    expect(pictureLine(pic, 0, 'kitty', '/u', () => JPEG)).toBe('     picture: http://127.0.0.1:9/pics/rose.png');
  });

  it('reads the stored file under user/ and draws it', () => {
    const read: string[] = [];
    const line = pictureLine(pic, 0, 'kitty', '/data/user', (f) => {
      read.push(f);
      return png;
    });
    expect(read).toEqual(['/data/user/images/ab/cd.png']);
    expect(line).toBe(`     ${kittyImage(png)}`);
  });

  it('goes under its result in the list', () => {
    const r = {
      mode: 'words' as const,
      total: 1,
      nextCursor: null,
      elapsedMs: 3,
      results: [
        {
          id: 'r1',
          title: 'Roses',
          url: 'http://127.0.0.1:9/roses.html',
          catalog: 'garden',
          catalogId: 'c1',
          version: 0,
          score: 1,
          highlights: [],
          textPath: 't',
        },
      ],
    };
    const text = formatResults(r, () => '     picture: http://127.0.0.1:9/pics/rose.png');
    expect(text.split('\n').slice(0, 3)).toEqual([
      '  1. Roses',
      '     http://127.0.0.1:9/roses.html  [garden v0, score 1.000]',
      '     picture: http://127.0.0.1:9/pics/rose.png',
    ]);
    expect(formatResults(r)).not.toContain('picture:');
  });
});
