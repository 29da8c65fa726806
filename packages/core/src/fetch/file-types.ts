import { extname } from 'node:path';

/** The folder's content type in a FetchResult of the file extractor (no resource is made of it). */
export const FOLDER_TYPE = 'inode/directory';

/** The type a file whose extension is not in {@link FILE_TYPES} is given. */
export const UNKNOWN_FILE_TYPE = 'application/octet-stream';

/**
 * Content types of local files by extension (lower case, without the dot): what a web server would answer for them.
 * Only the name is read; a binary under an html name is still caught by the engine's binary sniff.
 */
export const FILE_TYPES: Readonly<Record<string, string>> = Object.freeze({
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'application/xhtml+xml',
  txt: 'text/plain',
  text: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  xml: 'application/xml',
  json: 'application/json',
  css: 'text/css',
  js: 'text/javascript',
  pdf: 'application/pdf',
  rtf: 'application/rtf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  epub: 'application/epub+zip',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  ico: 'image/x-icon',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
});

/** The content type of a local file, from its name's extension ({@link UNKNOWN_FILE_TYPE} when unknown). */
export function fileContentType(path: string): string {
  const ext = extname(path).slice(1).toLowerCase();
  return (ext && FILE_TYPES[ext]) || UNKNOWN_FILE_TYPE;
}
