import { describe, expect, it } from 'vitest';
import { looksBinary } from '../../src/fetch/content-type.js';
import { encodePng } from '../support/png.js';

describe('looksBinary: a body labelled html that is not text', () => {
  it('knows pictures, PDFs, archives and gzip by their signature', () => {
    expect(looksBinary(encodePng(2, 2, () => [0, 0, 0]))).toBe(true);
    expect(looksBinary(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]))).toBe(true);
    expect(looksBinary(Buffer.from('%PDF-1.7\n'))).toBe(true);
    expect(looksBinary(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2]))).toBe(true);
    expect(looksBinary(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe(true);
    expect(looksBinary(Buffer.from([0, 0, 0, 0x20, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]))).toBe(true);
    expect(looksBinary(Buffer.from('wOF2\u0000\u0001'))).toBe(true);
  });

  it('a page with a stray NUL byte is not a binary: one NUL, unclosed tags and a stray </div></table> are a page', () => {
    const broken = '<html><head><title>Broken\u0000 page</title><body><p>Unclosed <b>bold <i>text</div></table>';
    expect(looksBinary(Buffer.from(broken))).toBe(false);
    expect(looksBinary(Buffer.from('<html>\u0000</html>'))).toBe(false);
    expect(looksBinary(Buffer.from(`<p>${'\u0000'.repeat(3)}${' words'.repeat(100)}</p>`))).toBe(false);
  });

  it('judges by the share of control bytes in the first 4 KB: random or packed bytes are binary, a UTF-16 page is not', () => {
    let seed = 7;
    const random = Buffer.alloc(4096, 0).map(() => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed >>> 16;
    });
    expect(looksBinary(random)).toBe(true);
    expect(looksBinary(Buffer.concat([Buffer.from('<html>'), Buffer.alloc(64, 1)]))).toBe(true);
    // Control bytes past the first 4 KB are not read.
    expect(looksBinary(Buffer.from(`<html>${' '.repeat(5000)}${'\u0000'.repeat(600)}</html>`))).toBe(false);
    expect(looksBinary(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html>', 'utf16le')]))).toBe(false);
  });

  it('leaves html, latin-1 text and an empty body alone', () => {
    expect(looksBinary(Buffer.from('<!doctype html><title>ok</title>'))).toBe(false);
    expect(looksBinary(Buffer.from('caf\u00e9', 'latin1'))).toBe(false);
    expect(looksBinary(Buffer.alloc(0))).toBe(false);
  });
});
