import { Parser } from 'htmlparser2';
import type { DocumentContentParser, ParsedDocument } from './document-parser.js';
import { DocumentLinks, MAX_DOCUMENT_TEXT, tidyText } from './document-text.js';
import { readZip, type ZipArchive } from './zip-reader.js';

/** The media type of a Word document (Office Open XML). */
export const DOCX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

const HYPERLINK_TYPE = /\/relationships\/hyperlink$/;
const OFFICE_DOCUMENT_TYPE = /\/relationships\/officeDocument$/;
const HEADING_STYLE = /^(?:title|heading ?\d)$/i;
/** Cells of a table row, in the text. */
const CELL_SEPARATOR = ' · ';

const localName = (name: string) => name.slice(name.indexOf(':') + 1);

function parseXml(xml: string, handlers: ConstructorParameters<typeof Parser>[0]): void {
  const parser = new Parser(handlers, { xmlMode: true, decodeEntities: true });
  parser.end(xml);
}

interface Relationship {
  type: string;
  target: string;
  external: boolean;
}

function relationships(zip: ZipArchive, name: string): Map<string, Relationship> {
  const rels = new Map<string, Relationship>();
  const xml = zip.text(name);
  if (!xml) return rels;
  parseXml(xml, {
    onopentag(tag, a) {
      if (localName(tag) !== 'Relationship' || !a.Id || !a.Target) return;
      rels.set(a.Id, { type: a.Type ?? '', target: a.Target, external: a.TargetMode === 'External' });
    },
  });
  return rels;
}

/** docProps/core.xml (Dublin Core) and docProps/app.xml: what the document says about itself. */
function properties(zip: ZipArchive): Record<string, string> {
  const out: Record<string, string> = {};
  const fields: Record<string, string> = {
    title: 'title',
    subject: 'subject',
    creator: 'creator',
    keywords: 'keywords',
    description: 'description',
    lastModifiedBy: 'lastModifiedBy',
    created: 'created',
    modified: 'modified',
    language: 'language',
    Pages: 'pages',
    Application: 'application',
  };
  for (const part of ['docProps/core.xml', 'docProps/app.xml']) {
    const xml = zip.text(part);
    if (!xml) continue;
    let field: string | undefined;
    let value = '';
    parseXml(xml, {
      onopentag(tag) {
        field = fields[localName(tag)];
        value = '';
      },
      ontext(t) {
        if (field) value += t;
      },
      onclosetag() {
        if (field && value.trim()) out[field] = value.trim();
        field = undefined;
      },
    });
  }
  return out;
}

/** Style ids whose names are headings (`heading 1`, `Title`, in any language Word uses ids for), and the default language. */
function styles(zip: ZipArchive, stylesPart: string): { headings: Set<string>; lang: string } {
  const headings = new Set<string>();
  let lang = '';
  const xml = zip.text(stylesPart);
  if (!xml) return { headings, lang };
  let styleId: string | undefined;
  let inDefaults = false;
  parseXml(xml, {
    onopentag(tag, a) {
      const n = localName(tag);
      if (n === 'style') {
        styleId = a['w:styleId'];
        if (styleId && HEADING_STYLE.test(styleId)) headings.add(styleId);
      } else if (n === 'name' && styleId && HEADING_STYLE.test(a['w:val'] ?? '')) headings.add(styleId);
      else if (n === 'docDefaults') inDefaults = true;
      else if (n === 'lang' && inDefaults && !lang) lang = a['w:val'] ?? '';
    },
    onclosetag(tag) {
      const n = localName(tag);
      if (n === 'style') styleId = undefined;
      else if (n === 'docDefaults') inDefaults = false;
    },
  });
  return { headings, lang };
}

interface Body {
  paragraphs: string[];
  firstHeading: string;
  truncated: boolean;
}

/**
 * The text of word/document.xml: one paragraph per w:p (runs joined, w:tab and w:br kept), a table as one block of
 * rows with its cells joined by ' · ', deleted text (w:delText), field codes and the fallback copy of alternate
 * content left out; hyperlinks (w:hyperlink r:id, HYPERLINK fields) handed to `link` in document order.
 */
function body(xml: string, headingStyles: Set<string>, link: (rid: string | undefined, url?: string) => void): Body {
  const paragraphs: string[] = [];
  let firstHeading = '';
  let chars = 0;
  let truncated = false;
  const open: { text: string; style: string }[] = [];
  let inText = false;
  let inProperties = false;
  let inInstr = false;
  let instr = '';
  let skipDepth = 0;
  let tableDepth = 0;
  let cell = '';
  let row: string[] = [];
  let table: string[] = [];
  const emit = (text: string) => {
    if (truncated) return;
    if (chars + text.length > MAX_DOCUMENT_TEXT) {
      truncated = true;
      return;
    }
    chars += text.length + 2;
    paragraphs.push(text);
  };
  parseXml(xml, {
    onopentag(tag, a) {
      const n = localName(tag);
      if (skipDepth > 0 || n === 'Fallback' || n === 'delText') {
        skipDepth++;
        return;
      }
      const p = open[open.length - 1];
      switch (n) {
        case 'p':
          open.push({ text: '', style: '' });
          break;
        case 'pStyle':
          if (p) p.style = a['w:val'] ?? '';
          break;
        case 't':
          inText = true;
          break;
        case 'pPr':
          inProperties = true;
          break;
        case 'tab':
          // A w:tab in the paragraph properties is a tab stop, not a tab.
          if (p && !inProperties) p.text += '\t';
          break;
        case 'br':
        case 'cr':
          if (p) p.text += '\n';
          break;
        case 'hyperlink':
          link(a['r:id']);
          break;
        case 'instrText':
          inInstr = true;
          break;
        case 'fldSimple': {
          const m = /HYPERLINK\s+"([^"]+)"/.exec(a['w:instr'] ?? '');
          if (m) link(undefined, m[1]);
          break;
        }
        case 'tbl':
          if (tableDepth++ === 0) table = [];
          break;
        case 'tr':
          if (tableDepth === 1) row = [];
          break;
        case 'tc':
          if (tableDepth === 1) cell = '';
          break;
      }
    },
    ontext(t) {
      if (skipDepth > 0) return;
      if (inText) {
        const p = open[open.length - 1];
        if (p) p.text += t;
      } else if (inInstr) instr += t;
    },
    onclosetag(tag) {
      const n = localName(tag);
      if (skipDepth > 0) {
        skipDepth--;
        return;
      }
      switch (n) {
        case 't':
          inText = false;
          break;
        case 'pPr':
          inProperties = false;
          break;
        case 'instrText':
          inInstr = false;
          break;
        case 'fldChar':
        case 'r': {
          const m = /HYPERLINK\s+"([^"]+)"/.exec(instr);
          if (m) link(undefined, m[1]);
          if (m || n === 'fldChar') instr = '';
          break;
        }
        case 'p': {
          const p = open.pop();
          if (!p) break;
          const text = p.text
            .replace(/[^\S\n]+/g, ' ')
            .replace(/ ?\n ?/g, '\n')
            .trim();
          if (!text) break;
          if (tableDepth > 0) cell = cell ? `${cell} ${text}` : text;
          else {
            if (!firstHeading && headingStyles.has(p.style)) firstHeading = text.replace(/\s+/g, ' ');
            emit(text);
          }
          break;
        }
        case 'tc':
          if (tableDepth === 1 && cell) row.push(cell);
          break;
        case 'tr':
          if (tableDepth === 1 && row.length) table.push(row.join(CELL_SEPARATOR));
          break;
        case 'tbl':
          if (--tableDepth === 0 && table.length) emit(table.join('\n'));
          break;
      }
    },
  });
  return { paragraphs, firstHeading, truncated };
}

/** The directory of a zip part name, with its trailing slash ('' at the root). */
const dirOf = (part: string) => part.slice(0, part.lastIndexOf('/') + 1);

/**
 * The `docx` parser: Word documents (Office Open XML), read straight from the zip (zip-reader.ts, every part inflated
 * under a 64 MiB cap) with htmlparser2's SAX parser: text by paragraphs, the title from docProps/core.xml (dc:title)
 * else the first heading, the core and app properties as metadata, external hyperlinks as links.
 */
export class DocxDocumentParser implements DocumentContentParser {
  readonly name = 'docx';
  readonly mediaTypes = Object.freeze([DOCX_MEDIA_TYPE]);
  readonly extensions = Object.freeze(['.docx']);

  async parse(bytes: Uint8Array, url: string): Promise<ParsedDocument> {
    const zip = readZip(bytes);
    const rootRels = relationships(zip, '_rels/.rels');
    const main =
      [...rootRels.values()].find((r) => OFFICE_DOCUMENT_TYPE.test(r.type))?.target.replace(/^\//, '') ??
      'word/document.xml';
    const xml = zip.text(main);
    if (xml === undefined) throw new Error(`not a Word document: the zip has no ${main}`);
    const dir = dirOf(main);
    const rels = relationships(zip, `${dir}_rels/${main.slice(dir.length)}.rels`);
    const stylesTarget = [...rels.values()].find((r) => /\/relationships\/styles$/.test(r.type))?.target;
    const style = styles(zip, stylesTarget ? dir + stylesTarget.replace(/^\//, '') : `${dir}styles.xml`);
    const links = new DocumentLinks(url);
    const referenced = new Set<string>();
    const doc = body(xml, style.headings, (rid, direct) => {
      if (direct) links.add(direct);
      const rel = rid ? rels.get(rid) : undefined;
      if (rid && rel?.external && HYPERLINK_TYPE.test(rel.type)) {
        referenced.add(rid);
        links.add(rel.target);
      }
    });
    // External hyperlinks no run refers to (a link in a text box of another story, a comment) still are links.
    for (const [id, rel] of rels)
      if (!referenced.has(id) && rel.external && HYPERLINK_TYPE.test(rel.type)) links.add(rel.target);
    const props = properties(zip);
    const { title = '', language, ...metadata } = props;
    if (doc.truncated) metadata.truncated = 'true';
    return {
      title: title || doc.firstHeading,
      text: tidyText(doc.paragraphs.join('\n\n')),
      links: links.list(),
      metadata,
      lang: language || style.lang,
    };
  }
}
