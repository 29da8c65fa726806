import { charsetFromContentType, decodeBody, detectCharset } from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';

const ascii = (s: string) => Buffer.from(s, 'latin1');

describe('detectCharset', () => {
  it('reads the Content-Type charset parameter, quoted or not', () => {
    expect(charsetFromContentType('text/html; charset="ISO-8859-1"')).toBe('ISO-8859-1');
    expect(detectCharset(ascii('<p>x</p>'), 'text/html;charset=Shift_JIS')).toEqual({
      charset: 'shift_jis',
      source: 'header',
    });
  });

  it('lets a byte order mark win over the header', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>é</p>')]);
    expect(detectCharset(body, 'text/html; charset=windows-1252').source).toBe('bom');
    const decoded = decodeBody(body, 'text/html; charset=windows-1252');
    expect(decoded.text).toBe('<p>é</p>');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>hi</p>', 'utf16le')]);
    expect(decodeBody(le, 'text/html')).toMatchObject({ charset: 'utf-16le', source: 'bom', text: '<p>hi</p>' });
  });

  it('finds <meta charset> and <meta http-equiv> in the first 2 KiB', () => {
    expect(detectCharset(ascii('<html><head><meta charset="euc-jp"></head>'), 'text/html')).toEqual({
      charset: 'euc-jp',
      source: 'meta',
      unknownLabel: undefined,
    });
    const httpEquiv = ascii('<meta http-equiv="Content-Type" content="text/html; charset=gb2312"><p>x</p>');
    expect(detectCharset(httpEquiv, null)).toMatchObject({ charset: 'gbk', source: 'meta' });
    const late = ascii(`<html>${' '.repeat(3000)}<meta charset="koi8-r">`);
    expect(detectCharset(late, 'text/html')).toMatchObject({ charset: 'utf-8', source: 'default' });
  });

  it('reads the XML declaration', () => {
    const xml = ascii('<?xml version="1.0" encoding="ISO-8859-2"?><rss/>');
    expect(detectCharset(xml, 'application/xml')).toMatchObject({ charset: 'iso-8859-2', source: 'xml' });
  });

  it('defaults to utf-8 and records an unknown label', () => {
    expect(detectCharset(ascii('<p>x</p>'), 'text/html')).toMatchObject({ charset: 'utf-8', source: 'default' });
    const r = decodeBody(Buffer.from('<p>ü</p>'), 'text/html; charset=x-klingon');
    expect(r).toMatchObject({ charset: 'utf-8', source: 'default', unknownLabel: 'x-klingon', text: '<p>ü</p>' });
  });

  it('decodes a windows-1252 body', () => {
    // 0x93/0x94 are curly quotes and 0x80 the euro sign in windows-1252 (not in latin-1).
    const body = Buffer.from([0x3c, 0x70, 0x3e, 0x93, 0x80, 0x35, 0x94, 0x20, 0xe9, 0x3c, 0x2f, 0x70, 0x3e]);
    expect(decodeBody(body, 'text/html; charset=windows-1252').text).toBe('<p>\u201c\u20ac5\u201d é</p>');
    expect(decodeBody(body, 'text/html; charset=iso-8859-1').text).toBe('<p>\u201c\u20ac5\u201d é</p>');
  });

  it('decodes a shift_jis body declared in a meta tag', () => {
    // 日本語 in Shift_JIS: 93 FA 96 7B 8C EA
    const head = ascii('<html><head><meta charset="Shift_JIS"></head><body><p>');
    const body = Buffer.concat([head, Buffer.from([0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea]), ascii('</p></body></html>')]);
    const r = decodeBody(body, 'text/html');
    expect(r.charset).toBe('shift_jis');
    expect(r.text).toContain('<p>日本語</p>');
  });
});
