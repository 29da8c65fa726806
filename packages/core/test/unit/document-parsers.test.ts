import {
  DOCX_MEDIA_TYPE,
  DocxDocumentParser,
  documentKind,
  documentMediaTypes,
  documentParser,
  documentParserRegistry,
  isBuiltInDocumentParser,
  MAX_DOCUMENT_TEXT,
  markdownText,
  PdfDocumentParser,
  parseCsv,
  TextDocumentParser,
} from '@greenfinger/core/internal';
import { describe, expect, it } from 'vitest';
import { docxBomb, hostilePdf, makeDocx, makePdf, makeZip } from '../support/documents.js';
import { encodeLegacy } from '../support/legacy-encoding.js';

const pdf = new PdfDocumentParser();
const docx = new DocxDocumentParser();
const text = new TextDocumentParser();

describe('pdf parser (pdf.js)', () => {
  const bytes = makePdf({
    title: 'Annual report of the Greenfinger garden',
    author: 'Ada Lovelace',
    subject: 'Tomatoes and beans',
    keywords: 'garden, report',
    lang: 'en-GB',
    pages: [
      'The tomatoes grew tall this summer in the eastern beds.\n\nA second paragraph about the beans, long enough to wrap onto a second line of the page so that wrapping inside a paragraph is seen too.',
      'Page two speaks of the compost heap. Café façade naïve — “curly quotes”.',
    ],
    links: [
      'https://garden.test/plants?sort=name#top',
      '../minutes/2024.pdf',
      'mailto:ada@garden.test',
      'javascript:alert(1)',
      'file:///srv/share/plan.docx',
    ],
  });

  it('reads the text page by page, paragraphs separated by a blank line, words intact', async () => {
    const doc = await pdf.parse(bytes, 'https://garden.test/reports/annual.pdf', 'application/pdf');
    expect(doc.text).toContain('The tomatoes grew tall this summer in the eastern beds.');
    expect(doc.text).toContain('Café façade naïve — “curly quotes”.');
    const paragraphs = doc.text.split('\n\n');
    expect(paragraphs).toHaveLength(3);
    // Two lines on the page, one paragraph: the line break stays, no blank line inside.
    expect(paragraphs[1]).toMatch(
      /^A second paragraph about the beans, [^\n]+\n[^\n]+ inside a paragraph is seen too\.$/,
    );
    expect(doc.text.indexOf('compost')).toBeGreaterThan(doc.text.indexOf('beans'));
  });

  it('takes the Info title, the metadata, the declared language', async () => {
    const doc = await pdf.parse(bytes, 'https://garden.test/reports/annual.pdf', 'application/pdf');
    expect(doc.title).toBe('Annual report of the Greenfinger garden');
    expect(doc.lang).toBe('en-GB');
    expect(doc.metadata).toMatchObject({
      author: 'Ada Lovelace',
      subject: 'Tomatoes and beans',
      keywords: 'garden, report',
      creator: 'greenfinger test support',
      producer: 'makePdf',
      created: '2024-03-05T06:07:08.000Z',
      modified: '2024-03-05T06:07:08.000Z',
      pages: '2',
    });
  });

  it('keeps http, https and file link annotations, resolved against the document url, without fragments', async () => {
    const doc = await pdf.parse(bytes, 'https://garden.test/reports/annual.pdf', 'application/pdf');
    expect(doc.links).toEqual([
      // Page 1 holds links 1, 3 and 5 (makePdf spreads them over the pages), page 2 links 2 and 4.
      'https://garden.test/plants?sort=name',
      'file:///srv/share/plan.docx',
      'https://garden.test/minutes/2024.pdf',
    ]);
  });

  it('without an Info title takes the first line; a UTF-16 title is decoded', async () => {
    const untitled = await pdf.parse(
      makePdf({ pages: ['Minutes of the meeting\n\nWe met.'] }),
      'https://g.test/m.pdf',
      '',
    );
    expect(untitled.title).toBe('Minutes of the meeting');
    expect(untitled.lang).toBe('');
    const utf16 = await pdf.parse(makePdf({ title: 'Über Gärten – ½', pages: ['x'] }), 'https://g.test/u.pdf', '');
    expect(utf16.title).toBe('Über Gärten – ½');
  });

  it('throws on a truncated PDF, random bytes, a header with garbage and a page tree that loops', async () => {
    for (const kind of ['truncated', 'random', 'header-only', 'page-loop'] as const) {
      await expect(pdf.parse(hostilePdf(kind), 'https://g.test/bad.pdf', 'application/pdf'), kind).rejects.toThrow(
        /not a readable PDF|circular|Invalid/,
      );
    }
  });
});

describe('docx parser', () => {
  it('reads paragraphs (runs joined), the core title, metadata, language and hyperlinks', async () => {
    const bytes = makeDocx({
      title: 'Planting plan',
      creator: 'Grace Hopper',
      lang: 'en-GB',
      paragraphs: ['# Spring', 'Sow the peas in March when the soil is workable.', 'Beans & squash go in late May.'],
      links: ['https://garden.test/seeds', 'calendar.html', 'mailto:grace@garden.test'],
    });
    const doc = await docx.parse(bytes, 'https://garden.test/plans/plan.docx', DOCX_MEDIA_TYPE);
    expect(doc.title).toBe('Planting plan');
    expect(doc.text.split('\n\n').slice(0, 3)).toEqual([
      'Spring',
      'Sow the peas in March when the soil is workable.',
      'Beans & squash go in late May.',
    ]);
    expect(doc.links).toEqual(['https://garden.test/seeds', 'https://garden.test/plans/calendar.html']);
    expect(doc.metadata).toMatchObject({
      creator: 'Grace Hopper',
      created: '2024-03-05T06:07:08Z',
      modified: '2024-03-05T06:07:08Z',
    });
    expect(doc.lang).toBe('en-GB');
  });

  it('without a core title takes the first heading', async () => {
    const doc = await docx.parse(
      makeDocx({ paragraphs: ['An opening line.', '# The real heading', 'Body.'] }),
      'https://g.test/a.docx',
      '',
    );
    expect(doc.title).toBe('The real heading');
  });

  it('reads tables as rows of cells, HYPERLINK fields, tabs; leaves out deleted text, tab stops and fallbacks', async () => {
    const w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    const r = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
    const xml = `<?xml version="1.0" encoding="UTF-8"?><w:document ${w} ${r}><w:body>
      <w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr><w:r><w:t>Name</w:t></w:r><w:r><w:tab/><w:t>Value</w:t></w:r></w:p>
      <w:tbl><w:tr><w:tc><w:p><w:r><w:t>Tomato</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>red</w:t></w:r></w:p><w:p><w:r><w:t>round</w:t></w:r></w:p></w:tc></w:tr>
      <w:tr><w:tc><w:p><w:r><w:t>Bean</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>green</w:t></w:r></w:p></w:tc></w:tr></w:tbl>
      <w:p><w:r><w:t xml:space="preserve">Kept </w:t></w:r><w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del><w:r><w:t>text.</w:t></w:r></w:p>
      <w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> HYPERLINK "https://garden.test/</w:instrText></w:r><w:r><w:instrText>field" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>field link</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>
      <w:p><w:r><mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"><mc:Choice Requires="wps"><w:t>box text</w:t></mc:Choice><mc:Fallback><w:t>box text again</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>
    </w:body></w:document>`;
    const bytes = makeZip([
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'word/document.xml', data: xml, store: true },
    ]);
    const doc = await docx.parse(bytes, 'https://g.test/t.docx', DOCX_MEDIA_TYPE);
    expect(doc.text).toBe('Name Value\n\nTomato · red round\nBean · green\n\nKept text.\n\nfield link\n\nbox text');
    expect(doc.links).toEqual(['https://garden.test/field']);
    expect(doc.title).toBe('');
  });

  it('throws on bytes that are not a zip, a zip that is not a Word file, and a zip bomb', async () => {
    await expect(docx.parse(hostilePdf('random'), 'https://g.test/x.docx', '')).rejects.toThrow(/not a zip/);
    const notWord = makeZip([{ name: 'hello.txt', data: 'hello' }]);
    await expect(docx.parse(notWord, 'https://g.test/x.docx', '')).rejects.toThrow(/not a Word document/);
    const cut = makeDocx({ paragraphs: ['x'] });
    await expect(docx.parse(cut.subarray(0, cut.length - 30), 'https://g.test/x.docx', '')).rejects.toThrow(/zip/);
    await expect(docx.parse(docxBomb(80), 'https://g.test/x.docx', '')).rejects.toThrow(/inflates past 64 MiB/);
  });
});

describe('text parser', () => {
  const md = [
    '---',
    'lang: en',
    '---',
    '# Growing *tomatoes*',
    '',
    'Tomatoes need **full sun** and _regular_ water; see [the guide](guide.html "Guide") or',
    '<https://garden.test/auto> and https://garden.test/bare. A snake_case_name stays.',
    '',
    '![a ripe tomato](tomato.jpg)',
    '',
    '```js',
    'const harvest = plants.filter((p) => p.ripe);',
    '```',
    '',
    '| plant | month |',
    '| ----- | ----- |',
    '| pea   | March |',
    '',
    '- [x] mulch the beds',
    '> Quoted ~~old~~ wisdom, and `inline code`.',
    '',
    '[ref]: https://garden.test/reference',
    'See [the reference][ref].',
  ].join('\n');

  it('Markdown: title from the first # heading, words kept, markup and link targets dropped', async () => {
    const doc = await text.parse(
      Buffer.from(md),
      'https://garden.test/docs/tomatoes.md',
      'text/markdown; charset=utf-8',
    );
    expect(doc.title).toBe('Growing tomatoes');
    expect(doc.lang).toBe('en');
    expect(doc.metadata.format).toBe('markdown');
    expect(doc.text).toBe(
      [
        'Growing tomatoes',
        '',
        'Tomatoes need full sun and regular water; see the guide or',
        'https://garden.test/auto and https://garden.test/bare. A snake_case_name stays.',
        '',
        'a ripe tomato',
        '',
        'const harvest = plants.filter((p) => p.ripe);',
        '',
        'plant · month',
        'pea · March',
        '',
        'mulch the beds',
        'Quoted old wisdom, and inline code.',
        '',
        'See the reference.',
      ].join('\n'),
    );
    expect(doc.links).toEqual([
      'https://garden.test/docs/guide.html',
      'https://garden.test/auto',
      'https://garden.test/reference',
      'https://garden.test/bare',
    ]);
  });

  it('Markdown by text/x-markdown, and by a .md url when the type is text/plain or says nothing', async () => {
    for (const [type, url] of [
      ['text/x-markdown', 'https://g.test/a'],
      ['text/plain', 'https://raw.g.test/repo/README.md'],
      ['application/octet-stream', 'https://g.test/notes.markdown'],
    ]) {
      const doc = await text.parse(Buffer.from('Intro line\n\n# Heading'), url!, type!);
      expect(doc.metadata.format, `${type} ${url}`).toBe('markdown');
      expect(doc.title).toBe('Heading');
    }
    expect(markdownText('Big title\n=========\n\ntext').title).toBe('Big title');
  });

  it('CSV: quoted cells (delimiters, line breaks, doubled quotes), semicolons, title from the file name', async () => {
    const csv = 'name,colour,note\r\n"Tomato, cherry",red,"says ""hi""\nand more"\n\nBean,,https://garden.test/beans\n';
    const doc = await text.parse(Buffer.from(csv), 'https://garden.test/data/plants%202024.csv', 'text/csv');
    expect(doc.title).toBe('plants 2024');
    expect(doc.text).toBe(
      'name · colour · note\nTomato, cherry · red · says "hi" and more\nBean · https://garden.test/beans',
    );
    expect(doc.links).toEqual(['https://garden.test/beans']);
    expect(parseCsv('a;b;c\n1;"2;3";4')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2;3', '4'],
    ]);
  });

  it('plain text: a short first line is the title, bare urls are the links (sentence punctuation dropped)', async () => {
    const body =
      'Garden notes\n\nWater at dawn (see https://garden.test/water_(dawn)). Also https://garden.test/x, then stop.\n';
    const doc = await text.parse(Buffer.from(body), 'https://garden.test/notes.txt', 'text/plain');
    expect(doc.title).toBe('Garden notes');
    expect(doc.links).toEqual(['https://garden.test/water_(dawn)', 'https://garden.test/x']);
    expect(doc.text).toBe(body.trim());
    const long = await text.parse(Buffer.from(`${'word '.repeat(30)}\nmore`), 'https://g.test/l.txt', 'text/plain');
    expect(long.title).toBe('');
  });

  it('decodes a byte order mark, the declared charset, and falls back to windows-1252 for bytes not UTF-8', async () => {
    const latin = encodeLegacy('Café crème — 20 €\n', 'windows-1252');
    const fallback = await text.parse(latin, 'https://g.test/a.txt', 'text/plain');
    expect(fallback.text).toBe('Café crème — 20 €');
    expect(fallback.metadata).toMatchObject({ charset: 'windows-1252', charsetFallbackFrom: 'utf-8' });
    const declared = await text.parse(latin, 'https://g.test/a.txt', 'text/plain; charset=windows-1252');
    expect(declared.text).toBe('Café crème — 20 €');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße aus dem Garten', 'utf16le')]);
    expect((await text.parse(utf16, 'https://g.test/b.txt', 'text/plain')).text).toBe('Grüße aus dem Garten');
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Title line\nrest')]);
    expect((await text.parse(bom, 'https://g.test/c.txt', '')).title).toBe('Title line');
  });

  it('keeps at most MAX_DOCUMENT_TEXT characters of a huge file, and says so', async () => {
    const huge = Buffer.alloc(2 * MAX_DOCUMENT_TEXT + 4096, 'ab \n');
    const doc = await text.parse(huge, 'https://g.test/huge.md', 'text/markdown');
    expect(doc.metadata.truncated).toBe('true');
    expect(doc.text.length).toBeLessThanOrEqual(MAX_DOCUMENT_TEXT);
    expect(doc.text.startsWith('ab\nab\n')).toBe(true);
    const small = await text.parse(Buffer.from('ab\n'), 'https://g.test/small.md', 'text/markdown');
    expect(small.metadata.truncated).toBeUndefined();
  });

  it('reads an empty file as empty text, and throws on binary bytes sent as text', async () => {
    await expect(text.parse(Buffer.alloc(0), 'https://g.test/e.txt', 'text/plain')).resolves.toMatchObject({
      title: '',
      text: '',
    });
    await expect(
      text.parse(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0]), 'https://g.test/z.txt', 'text/plain'),
    ).rejects.toThrow(/binary/);
  });
});

describe('documentKind and the registry', () => {
  it('goes by media type first, parameters and case aside', () => {
    expect(documentKind('application/pdf', 'https://g.test/download?id=1')).toEqual({
      parser: 'pdf',
      extension: '.pdf',
    });
    expect(documentKind('Application/PDF; qs=1', 'https://g.test/x')).toEqual({ parser: 'pdf', extension: '.pdf' });
    expect(documentKind(DOCX_MEDIA_TYPE, 'https://g.test/get.php')).toEqual({ parser: 'docx', extension: '.docx' });
    expect(documentKind('text/plain; charset=utf-8', 'https://g.test/notes')).toEqual({
      parser: 'text',
      extension: '.txt',
    });
    expect(documentKind('text/markdown', 'https://g.test/readme')).toEqual({ parser: 'text', extension: '.md' });
    expect(documentKind('text/x-markdown', 'https://g.test/readme')).toEqual({ parser: 'text', extension: '.md' });
    expect(documentKind('text/csv', 'https://g.test/export')).toEqual({ parser: 'text', extension: '.csv' });
    // text/plain for a .md or .csv file (raw file hosts) is kept as what the name says.
    expect(documentKind('text/plain', 'https://raw.g.test/README.md')).toEqual({ parser: 'text', extension: '.md' });
    expect(documentKind('text/plain', 'https://raw.g.test/data.csv')).toEqual({ parser: 'text', extension: '.csv' });
    expect(documentKind('text/plain', 'https://g.test/server.log')).toEqual({ parser: 'text', extension: '.txt' });
  });

  it('goes by the url extension when the type is missing, generic, or the url is a file', () => {
    expect(documentKind('application/octet-stream', 'https://g.test/files/Report.PDF')).toEqual({
      parser: 'pdf',
      extension: '.pdf',
    });
    expect(documentKind('binary/octet-stream', 'https://g.test/a.docx?dl=1')).toEqual({
      parser: 'docx',
      extension: '.docx',
    });
    expect(documentKind('', 'https://g.test/notes.markdown')).toEqual({ parser: 'text', extension: '.md' });
    expect(documentKind('', 'https://g.test/a.text')).toEqual({ parser: 'text', extension: '.txt' });
    expect(documentKind('text/plain', 'file:///srv/share/plan.pdf')).toEqual({ parser: 'pdf', extension: '.pdf' });
    expect(documentKind('text/plain', 'file:///srv/share/README')).toEqual({ parser: 'text', extension: '.txt' });
    expect(documentKind('application/octet-stream', 'https://g.test/archive.zip')).toBeUndefined();
    expect(documentKind('application/octet-stream', 'https://g.test/download')).toBeUndefined();
    expect(documentKind('', 'https://g.test/page.html')).toBeUndefined();
  });

  it('html, xhtml, xml, pictures are not documents, whatever the url says', () => {
    for (const type of ['text/html', 'application/xhtml+xml', 'application/xml', 'text/xml', 'image/png']) {
      expect(documentKind(type, 'https://g.test/a.pdf'), type).toBeUndefined();
    }
  });

  it('lists the media types it reads, and a parser a library user registers joins them', async () => {
    const types = documentMediaTypes();
    for (const t of [
      'application/pdf',
      DOCX_MEDIA_TYPE,
      'text/plain',
      'text/markdown',
      'text/x-markdown',
      'text/csv',
    ]) {
      expect(types).toContain(t);
    }
    expect(types).not.toContain('text/html');
    expect(isBuiltInDocumentParser('pdf')).toBe(true);
    documentParserRegistry.register('rtf-test', () => ({
      name: 'rtf-test',
      mediaTypes: ['application/rtf'],
      extensions: ['.rtf'],
      parse: async () => ({ title: 'r', text: 'rich', links: [], metadata: {}, lang: '' }),
    }));
    expect(documentMediaTypes()).toContain('application/rtf');
    expect(documentKind('application/rtf', 'https://g.test/x')).toEqual({ parser: 'rtf-test', extension: '.rtf' });
    expect(documentKind('', 'https://g.test/x.rtf')).toEqual({ parser: 'rtf-test', extension: '.rtf' });
    expect(isBuiltInDocumentParser('rtf-test')).toBe(false);
    expect((await documentParser('rtf-test').parse(Buffer.from('x'), 'https://g.test/x.rtf', '')).text).toBe('rich');
    expect(() => documentParser('nope')).toThrow(/unknown document parser "nope"/);
  });
});
