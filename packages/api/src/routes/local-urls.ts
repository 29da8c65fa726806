import { HttpRefusal } from '../envelope.js';

/**
 * The API crawls web sites only: a folder of the server's own disk (`file:///…` or a plain `/path`) is refused with
 * 403, since whoever may define catalogs over HTTP could otherwise index and search the server's files. A folder
 * catalog is created on the machine holding the folder, with `greenfinger crawl --url file:///…/`; the API may then
 * crawl it by name and search it like any other.
 */
export function refuseLocalUrl(url: string | undefined, field: string): void {
  if (url === undefined || !/^\s*(?:file:|\/)/i.test(url)) return;
  throw new HttpRefusal(
    403,
    `body: "${field}" names a local folder (${url.trim()}): the API crawls web sites only — create a folder catalog on its machine with greenfinger crawl --url file:///path/to/folder/`,
  );
}
