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
  });

  it('takes a NUL byte in the first 512 bytes as binary, but not a UTF-16 page or a NUL further on', () => {
    expect(looksBinary(Buffer.from('<html>\u0000</html>'))).toBe(true);
    expect(looksBinary(Buffer.from(`<html>${' '.repeat(600)}\u0000</html>`))).toBe(false);
    expect(looksBinary(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html>', 'utf16le')]))).toBe(false);
  });

  it('leaves html, latin-1 text and an empty body alone', () => {
    expect(looksBinary(Buffer.from('<!doctype html><title>ok</title>'))).toBe(false);
    expect(looksBinary(Buffer.from('caf\u00e9', 'latin1'))).toBe(false);
    expect(looksBinary(Buffer.alloc(0))).toBe(false);
  });
});
