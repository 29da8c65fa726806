/**
 * CDXJ index lines (webrecorder's "Crawl Index JSON"): `<SURT key> <14-digit timestamp> <JSON>`, sorted by key
 * then timestamp, each pointing at one gzipped WARC record by filename, offset and length.
 */

/** One indexed WARC record. */
export interface CdxjEntry {
  url: string;
  /** ISO instant of the capture. */
  date: string;
  mime: string;
  /** HTTP status; absent for a `resource` record. */
  status?: number | undefined;
  /** `sha256:<hex>` of the payload. */
  digest: string;
  /** Offset and length of the gzipped record in `filename`. */
  offset: number;
  length: number;
  filename: string;
}

/**
 * The SURT form of a url (Sort-friendly URI Reordering Transform, as pywb and wabac key their indexes): host labels
 * reversed and comma-joined (an IP address kept as it is), `www.` dropped, the port kept, then `)` and the path and
 * query, all lower case, without scheme or fragment.
 */
export function surt(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.toLowerCase();
  }
  let host = u.hostname.toLowerCase().replace(/^www\d*\./, '');
  const ip = /^\d+(\.\d+){3}$/.test(host) || host.startsWith('[');
  if (!ip) host = host.split('.').reverse().join(',');
  const port = u.port ? `:${u.port}` : '';
  const path = `${u.pathname}${u.search}`.toLowerCase();
  return `${host}${port})${path || '/'}`;
}

/** `20240501100001` from an ISO instant. */
export function timestamp14(iso: string): string {
  const d = new Date(iso);
  const t = Number.isNaN(d.getTime()) ? new Date(0) : d;
  return t.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** One CDXJ line (without its newline). */
export function cdxjLine(e: CdxjEntry): string {
  const json: Record<string, string> = { url: e.url, mime: e.mime };
  if (e.status !== undefined) json.status = String(e.status);
  json.digest = e.digest;
  json.length = String(e.length);
  json.offset = String(e.offset);
  json.filename = e.filename;
  return `${surt(e.url)} ${timestamp14(e.date)} ${JSON.stringify(json)}`;
}

/** CDXJ lines in index order (plain string order of key, then timestamp, as the format asks). */
export function sortCdxj(lines: string[]): string[] {
  return lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
