import { crc32, deflateRawSync, deflateSync } from 'node:zlib';
import { encodeLegacy } from './legacy-encoding.js';
import { rng } from './random.mjs';

/*
 * Documents written here byte by byte, so the parsers' tests need no file from elsewhere: PDFs (objects, xref table,
 * Info dictionary, Link annotations), Word files (a real zip of the OOXML parts) and hostile variants of both.
 */

/** What {@link makePdf} writes. */
export interface PdfSpec {
  /** The Info dictionary's Title; omitted when undefined. */
  title?: string | undefined;
  /** One string per page; paragraphs within a page are separated by a blank line (`\n\n`). */
  pages: string[];
  /** URI Link annotations, spread over the pages in order (link i on page i mod pages). */
  links?: string[] | undefined;
  author?: string | undefined;
  subject?: string | undefined;
  keywords?: string | undefined;
  /** The catalog's /Lang. */
  lang?: string | undefined;
  /** CreationDate and ModDate. @default 2024-03-05T06:07:08Z */
  created?: Date | undefined;
  /** Flate-compress the content streams, as most writers do. @default true */
  compress?: boolean | undefined;
}

const CHARS_PER_LINE = 90;
const LEADING = 15;

/** A PDF text string: literal when ASCII, else UTF-16BE with a byte order mark, as hex. */
function pdfString(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;
  const utf16 = Buffer.from(`\ufeff${s}`, 'utf16le').swap16();
  return `<${utf16.toString('hex')}>`;
}

function pdfDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}Z`;
}

function wrap(paragraph: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of paragraph.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > CHARS_PER_LINE) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The text operators of one page: Helvetica 11 pt, lines 15 pt apart, a blank line between paragraphs. */
function pageContent(text: string): string {
  const ops = ['BT', '/F1 11 Tf', `72 740 Td`];
  let first = true;
  for (const paragraph of text.split(/\n\s*\n/)) {
    if (!first) ops.push(`0 -${LEADING} Td`);
    for (const line of wrap(paragraph)) {
      if (!first) ops.push(`0 -${LEADING} Td`);
      first = false;
      // WinAnsiEncoding, as hex so no byte needs escaping; a character the font lacks becomes '?'.
      const bytes = Buffer.concat([...line].map((ch) => safeWinAnsi(ch)));
      ops.push(`<${bytes.toString('hex')}> Tj`);
    }
  }
  ops.push('ET');
  return ops.join('\n');
}

function safeWinAnsi(ch: string): Buffer {
  try {
    return encodeLegacy(ch, 'windows-1252');
  } catch {
    return Buffer.from('?');
  }
}

/** Objects numbered from 1, serialised with a correct xref table and trailer. */
class PdfWriter {
  readonly #objects: (Buffer | undefined)[] = [];

  reserve(): number {
    this.#objects.push(undefined);
    return this.#objects.length;
  }

  set(n: number, body: string | Buffer): void {
    this.#objects[n - 1] = Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1');
  }

  add(body: string | Buffer): number {
    const n = this.reserve();
    this.set(n, body);
    return n;
  }

  stream(dict: string, data: Buffer): Buffer {
    return Buffer.concat([
      Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]);
  }

  serialise(root: number, info?: number): Buffer {
    const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
    let offset = parts[0]!.length;
    const offsets: number[] = [];
    this.#objects.forEach((body, i) => {
      if (!body) throw new Error(`object ${i + 1} reserved but never written`);
      offsets.push(offset);
      const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
      parts.push(obj);
      offset += obj.length;
    });
    const xref = [`xref\n0 ${offsets.length + 1}\n`, '0000000000 65535 f \n'];
    for (const o of offsets) xref.push(`${String(o).padStart(10, '0')} 00000 n \n`);
    const trailer = `trailer\n<< /Size ${offsets.length + 1} /Root ${root} 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${offset}\n%%EOF\n`;
    parts.push(Buffer.from(xref.join('') + trailer, 'latin1'));
    return Buffer.concat(parts);
  }
}

/**
 * A valid PDF written by hand: a catalog (with /Lang when given), a page tree, one Helvetica text page per entry of
 * `pages`, URI Link annotations and an Info dictionary (Title, Author, Subject, Keywords, Creator, Producer, dates).
 * pdf.js, poppler and the other readers extract its text.
 */
export function makePdf(spec: PdfSpec): Buffer {
  if (spec.pages.length === 0) throw new TypeError('makePdf: give at least one page');
  const w = new PdfWriter();
  const catalog = w.reserve();
  const pagesNode = w.reserve();
  const font = w.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  const compress = spec.compress ?? true;
  const links = spec.links ?? [];
  const kids: number[] = [];
  spec.pages.forEach((text, p) => {
    const raw = Buffer.from(pageContent(text), 'latin1');
    const content = w.add(compress ? w.stream('/Filter /FlateDecode', deflateSync(raw)) : w.stream('', raw));
    const annots: number[] = [];
    links.forEach((url, i) => {
      if (i % spec.pages.length !== p) return;
      const y = 60 + 16 * annots.length;
      annots.push(
        w.add(
          `<< /Type /Annot /Subtype /Link /Rect [72 ${y} 300 ${y + 12}] /Border [0 0 0] /A << /Type /Action /S /URI /URI ${pdfString(url)} >> >>`,
        ),
      );
    });
    const annotsEntry = annots.length ? ` /Annots [${annots.map((a) => `${a} 0 R`).join(' ')}]` : '';
    kids.push(
      w.add(
        `<< /Type /Page /Parent ${pagesNode} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${content} 0 R${annotsEntry} >>`,
      ),
    );
  });
  w.set(pagesNode, `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`);
  w.set(catalog, `<< /Type /Catalog /Pages ${pagesNode} 0 R${spec.lang ? ` /Lang ${pdfString(spec.lang)}` : ''} >>`);
  const date = pdfDate(spec.created ?? new Date('2024-03-05T06:07:08Z'));
  const entries = [
    spec.title !== undefined ? `/Title ${pdfString(spec.title)}` : '',
    spec.author !== undefined ? `/Author ${pdfString(spec.author)}` : '',
    spec.subject !== undefined ? `/Subject ${pdfString(spec.subject)}` : '',
    spec.keywords !== undefined ? `/Keywords ${pdfString(spec.keywords)}` : '',
    '/Creator (greenfinger test support)',
    '/Producer (makePdf)',
    `/CreationDate (${date})`,
    `/ModDate (${date})`,
  ].filter(Boolean);
  const info = w.add(`<< ${entries.join(' ')} >>`);
  return w.serialise(catalog, info);
}

/** Kinds of {@link hostilePdf}. */
export type HostilePdfKind =
  /** A real PDF cut off at 40 % of its bytes: no xref, no trailer, a stream cut in half. */
  | 'truncated'
  /** Random bytes (seeded), as a server sends under a .pdf name. */
  | 'random'
  /** Starts like a PDF, then nothing but garbage: no object, no catalog. */
  | 'header-only'
  /**
   * A small file whose one page's content stream inflates to `mb` MiB of text operators (a decompression bomb):
   * a reader spends seconds and a lot of memory on it.
   */
  | 'bomb'
  /** A page tree claiming 100 million pages, its Kids pointing back at itself. */
  | 'page-loop'
  /**
   * A catalog carrying an array of `mb` MiB of zeros (half a million numbers per MiB), uncompressed: a reader
   * parses the catalog as it opens the file, so its heap fills within a second. The one that can crash a worker.
   */
  | 'huge-array';

/** A one-page PDF whose content stream is `content`, flate-compressed. */
function singlePagePdf(content: Buffer): Buffer {
  const w = new PdfWriter();
  const catalog = w.reserve();
  const pages = w.reserve();
  const font = w.add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  const stream = w.add(w.stream('/Filter /FlateDecode', deflateSync(content, { level: 9 })));
  const page = w.add(
    `<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 ${font} 0 R >> >> /Contents ${stream} 0 R >>`,
  );
  w.set(pages, `<< /Type /Pages /Kids [${page} 0 R] /Count 1 >>`);
  w.set(catalog, `<< /Type /Catalog /Pages ${pages} 0 R >>`);
  return w.serialise(catalog);
}

/** A document designed to break or stall a PDF reader (see {@link HostilePdfKind}). */
export function hostilePdf(kind: HostilePdfKind, options: { mb?: number; seed?: number } = {}): Buffer {
  switch (kind) {
    case 'truncated': {
      const real = makePdf({ title: 'Cut', pages: ['Some words on the first page.', 'And a second page.'] });
      return real.subarray(0, Math.floor(real.length * 0.4));
    }
    case 'random': {
      const next = rng(options.seed ?? 7);
      return Buffer.from(Array.from({ length: 4096 }, () => Math.floor(next() * 256)));
    }
    case 'header-only': {
      const next = rng(options.seed ?? 11);
      return Buffer.concat([
        Buffer.from('%PDF-1.7\n'),
        Buffer.from(Array.from({ length: 2048 }, () => 0x21 + Math.floor(next() * 90))),
      ]);
    }
    case 'bomb': {
      const mb = options.mb ?? 64;
      const line = Buffer.from('1 0 0 1 72 700 Tm (bomb) Tj\n', 'latin1');
      const raw = Buffer.alloc(mb * 1024 * 1024, 0x20);
      Buffer.from('BT /F1 12 Tf\n').copy(raw, 0);
      for (let o = 13; o + line.length <= raw.length - 4; o += line.length) line.copy(raw, o);
      Buffer.from('\nET\n').copy(raw, raw.length - 4);
      return singlePagePdf(raw);
    }
    case 'huge-array': {
      const mb = options.mb ?? 64;
      const w = new PdfWriter();
      const catalog = w.reserve();
      const pages = w.reserve();
      const page = w.add(`<< /Type /Page /Parent ${pages} 0 R /MediaBox [0 0 612 792] >>`);
      w.set(pages, `<< /Type /Pages /Kids [${page} 0 R] /Count 1 >>`);
      const zeros = Buffer.alloc(mb * 1024 * 1024, '0 ');
      w.set(
        catalog,
        Buffer.concat([Buffer.from(`<< /Type /Catalog /Pages ${pages} 0 R /Junk [`), zeros, Buffer.from('] >>')]),
      );
      return w.serialise(catalog);
    }
    case 'page-loop': {
      const w = new PdfWriter();
      const catalog = w.reserve();
      const pages = w.reserve();
      const inner = w.reserve();
      w.set(pages, `<< /Type /Pages /Kids [${inner} 0 R ${inner} 0 R] /Count 100000000 >>`);
      w.set(inner, `<< /Type /Pages /Parent ${pages} 0 R /Kids [${pages} 0 R ${inner} 0 R] /Count 50000000 >>`);
      w.set(catalog, `<< /Type /Catalog /Pages ${pages} 0 R >>`);
      return w.serialise(catalog);
    }
  }
}

// ── zip and docx ─────────────────────────────────────────────────────────────────────────────────────────────────

/** One file of {@link makeZip}. */
export interface ZipEntry {
  name: string;
  data: string | Buffer;
  /** Store the bytes as they are instead of deflating them. @default false */
  store?: boolean | undefined;
}

/**
 * A zip archive (PKWARE APPNOTE: local headers, central directory, end record; deflate or store, CRC-32 from
 * node:zlib), dated 2024-01-01.
 */
export function makeZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const dosTime = 0;
  const dosDate = ((2024 - 1980) << 9) | (1 << 5) | 1;
  for (const e of entries) {
    const data = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data, 'utf8');
    const name = Buffer.from(e.name, 'utf8');
    const method = e.store ? 0 : 8;
    const packed = e.store ? data : deflateRawSync(data);
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // utf-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, packed);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(method, 10);
    dir.writeUInt16LE(dosTime, 12);
    dir.writeUInt16LE(dosDate, 14);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(packed.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    central.push(dir, name);
    offset += local.length + name.length + packed.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBytes, end]);
}

/** What {@link makeDocx} writes. */
export interface DocxSpec {
  /** docProps/core.xml dc:title; omitted when undefined (the parser then takes the first heading). */
  title?: string | undefined;
  /** Paragraphs; one starting with `# ` is a Heading1 paragraph. */
  paragraphs: string[];
  /** External hyperlinks, each a paragraph of its own after the text, with the url as its text. */
  links?: string[] | undefined;
  creator?: string | undefined;
  /** dc:language in core.xml. */
  lang?: string | undefined;
  /** @default 2024-03-05T06:07:08Z */
  created?: Date | undefined;
}

const xmlEscape = (s: string) =>
  s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/** A run of text split in two runs at its middle, as Word splits runs at every formatting or edit boundary. */
function runs(text: string): string {
  const cut = text.indexOf(' ', Math.floor(text.length / 2));
  const parts = cut > 0 ? [text.slice(0, cut), text.slice(cut)] : [text];
  return parts
    .map(
      (p, i) => `<w:r>${i === 1 ? '<w:rPr><w:b/></w:rPr>' : ''}<w:t xml:space="preserve">${xmlEscape(p)}</w:t></w:r>`,
    )
    .join('');
}

/**
 * A Word document (.docx) as Word lays it out: [Content_Types].xml, _rels/.rels, word/document.xml (paragraphs,
 * Heading1 styles, w:hyperlink with r:id), word/_rels/document.xml.rels (External targets), docProps/core.xml.
 */
export function makeDocx(spec: DocxSpec): Buffer {
  const links = spec.links ?? [];
  const body: string[] = [];
  for (const p of spec.paragraphs) {
    const heading = p.startsWith('# ');
    const text = heading ? p.slice(2) : p;
    body.push(`<w:p>${heading ? '<w:pPr><w:pStyle w:val="Heading1"/></w:pPr>' : ''}${runs(text)}</w:p>`);
  }
  links.forEach((url, i) => {
    body.push(
      `<w:p><w:r><w:t xml:space="preserve">Link: </w:t></w:r><w:hyperlink r:id="rIdLink${i + 1}" w:history="1"><w:r><w:rPr><w:rStyle w:val="Hyperlink"/></w:rPr><w:t>${xmlEscape(url)}</w:t></w:r></w:hyperlink></w:p>`,
    );
  });
  const documentXml = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body>${body.join('')}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`;
  const rels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdStyles" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>${links
    .map(
      (url, i) =>
        `<Relationship Id="rIdLink${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="${xmlEscape(url)}" TargetMode="External"/>`,
    )
    .join('')}</Relationships>`;
  const date = (spec.created ?? new Date('2024-03-05T06:07:08Z')).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const core = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">${
    spec.title !== undefined ? `<dc:title>${xmlEscape(spec.title)}</dc:title>` : ''
  }${spec.creator !== undefined ? `<dc:creator>${xmlEscape(spec.creator)}</dc:creator>` : ''}${
    spec.lang !== undefined ? `<dc:language>${xmlEscape(spec.lang)}</dc:language>` : ''
  }<dcterms:created xsi:type="dcterms:W3CDTF">${date}</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">${date}</dcterms:modified></cp:coreProperties>`;
  const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>`;
  return makeZip([
    {
      name: '[Content_Types].xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`,
    },
    {
      name: '_rels/.rels',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`,
    },
    { name: 'word/document.xml', data: documentXml },
    { name: 'word/styles.xml', data: styles },
    { name: 'word/_rels/document.xml.rels', data: rels },
    { name: 'docProps/core.xml', data: core },
  ]);
}

/**
 * A .docx whose word/document.xml inflates to `mb` MiB (a zip bomb: about a thousandth of that on the wire).
 * A reader that inflates without a cap spends the memory.
 */
export function docxBomb(mb = 512): Buffer {
  const filler = Buffer.alloc(mb * 1024 * 1024, 0x20);
  return makeZip([
    { name: '[Content_Types].xml', data: '<Types/>' },
    { name: 'word/document.xml', data: Buffer.concat([Buffer.from('<w:document><w:body>'), filler]) },
  ]);
}
