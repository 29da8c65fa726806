import { documentParserExtensions } from '../content/documents/document-parsers.js';
import { Outcome } from '../outcomes.js';
import { isFileUrl } from '../url/file-url.js';
import type { AcceptorFactory } from './acceptor.js';
import { tryParseUrl } from './catalog-scope.js';
import { ACCEPT, refuse } from './verdict.js';

/** Extensions of files that are never pages. Images are fetched by the image path, not as pages. */
export const assetExtensions: readonly string[] = Object.freeze([
  // styles, scripts, data for scripts
  ...['css', 'js', 'mjs', 'cjs', 'map', 'json', 'wasm'],
  // fonts
  ...['woff', 'woff2', 'ttf', 'otf', 'eot'],
  // images
  ...['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp', 'tif', 'tiff', 'heic', 'heif', 'jxl'],
  // audio and video
  ...['mp3', 'mp4', 'm4a', 'm4v', 'webm', 'ogg', 'ogv', 'oga', 'opus', 'wav', 'flac', 'aac'],
  ...['avi', 'mov', 'mkv', 'wmv', 'flv', 'mpg', 'mpeg', 'm3u8', 'ts'],
  // archives, packages, binaries
  ...['zip', 'gz', 'tgz', 'bz2', 'xz', 'zst', '7z', 'rar', 'tar', 'jar', 'war', 'whl', 'egg'],
  ...['deb', 'rpm', 'apk', 'dmg', 'iso', 'img', 'exe', 'msi', 'bin', 'dll', 'so'],
]);

/** Extensions of documents only a document parser could read; refused unless documents are on. */
export const documentExtensions: readonly string[] = Object.freeze([
  ...['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp', 'rtf', 'epub'],
]);

/**
 * The document extensions a registered DocumentContentParser reads (content/documents: `pdf`, `docx` built in, and
 * any a library user registers): let through when documents are on.
 */
export function readableDocumentExtensions(): string[] {
  return documentParserExtensions().map((e) => e.replace(/^\./, '').toLowerCase());
}

export interface AssetCheckOptions {
  /** Extensions refused (without dot, any case). @default assetExtensions */
  extensions?: readonly string[];
  /**
   * Whether the documents a parser reads (pdf, docx) may be fetched; other office formats and epub are refused
   * either way (no parser reads them). Text, Markdown and CSV are never refused here.
   * @default false
   */
  documents?: boolean;
}

/** The extension of a url path's last segment, lowercased, or '' when it has none. */
export function pathExtension(pathname: string): string {
  const segment = pathname.slice(pathname.lastIndexOf('/') + 1);
  const dot = segment.lastIndexOf('.');
  return dot <= 0 ? '' : segment.slice(dot + 1).toLowerCase();
}

/** Builds the asset check from options; `assetCheck` is this with ctx.assets. */
export function createAssetCheck(options: AssetCheckOptions = {}): AcceptorFactory {
  const refused = new Set((options.extensions ?? assetExtensions).map((e) => e.replace(/^\./, '').toLowerCase()));
  const readable = options.documents ? readableDocumentExtensions() : [];
  for (const e of documentExtensions) if (!readable.includes(e)) refused.add(e);
  return () => {
    const name = 'asset-check';
    return {
      name,
      check(candidate) {
        const url = tryParseUrl(candidate.url);
        if (url === undefined) return ACCEPT;
        const ext = pathExtension(url.pathname);
        return ext !== '' && refused.has(ext) ? refuse(name, Outcome.REJECTED_ASSET, `.${ext} is not a page`) : ACCEPT;
      },
    };
  };
}

/**
 * Refuses obvious non-page assets by path extension (styles, scripts, fonts, images, media, archives, and documents
 * when documents are off), configurable through ctx.assets. Refuses with REJECTED_ASSET. In a catalog of a folder
 * (a `file:` url) documents are on unless ctx.assets says otherwise: its documents are what it is made for; in
 * any other, as the catalog's `documents` says (on by default).
 */
export const assetCheck: AcceptorFactory = (ctx) =>
  createAssetCheck({
    ...ctx.assets,
    documents: ctx.assets?.documents ?? (isFileUrl(ctx.catalog.url) || ctx.catalog.settings.documents),
  })(ctx);
