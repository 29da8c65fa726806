import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { StoredResponse } from '../model.js';

const gzipAsync = promisify(gzip);

/** Where records go: anything that counts its bytes (the offset of the next record) and takes a chunk. */
export interface WarcOut {
  readonly bytes: number;
  write(data: Uint8Array): Promise<void>;
}

/** Where one record landed, for the CDXJ index: the gzip member's offset and length, and the payload's digest. */
export interface WarcRecordInfo {
  offset: number;
  length: number;
  /** `sha256:<hex>` of the payload (the body). */
  digest: string;
}

/**
 * The header names whose meaning the stored body no longer matches: the crawl keeps the body decoded (no content
 * coding, no chunks), so these are written back under `X-Archive-Orig-…` and Content-Length states the body kept.
 */
const TRANSFER_HEADERS = new Set(['content-encoding', 'transfer-encoding', 'content-length']);

/**
 * WARC 1.1 records, each its own gzip member (so a reader seeks to one record by offset and length): `warcinfo`
 * first, then a `response` record per page that kept its answer (the status line and headers it arrived with, and
 * the body as stored) or a `resource` record for a page saved before answers were kept and for a picture.
 */
export class WarcWriter {
  readonly #out: WarcOut;
  readonly filename: string;

  constructor(out: WarcOut, filename: string) {
    this.#out = out;
    this.filename = filename;
  }

  /** The record describing the file: who wrote it and from what. */
  async warcinfo(date: string, fields: Record<string, string>): Promise<WarcRecordInfo> {
    const body = Buffer.from(
      Object.entries(fields)
        .map(([k, v]) => `${k}: ${oneLine(v)}\r\n`)
        .join(''),
      'utf8',
    );
    return this.#record(
      { 'WARC-Type': 'warcinfo', 'WARC-Date': warcDate(date), 'WARC-Filename': this.filename },
      'application/warc-fields',
      body,
      body,
    );
  }

  /** A page's answer: its status line and headers as kept, then its stored body. */
  async response(url: string, date: string, response: StoredResponse, body: Buffer): Promise<WarcRecordInfo> {
    const lines = [`${response.protocol} ${response.status} ${oneLine(response.reason)}`.trimEnd()];
    for (const [name, value] of response.headers) {
      if (TRANSFER_HEADERS.has(name)) lines.push(`X-Archive-Orig-${name}: ${oneLine(value)}`);
      else lines.push(`${name}: ${oneLine(value)}`);
    }
    lines.push(`content-length: ${body.length}`);
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8');
    return this.#record(
      { 'WARC-Type': 'response', 'WARC-Target-URI': url, 'WARC-Date': warcDate(date) },
      'application/http;msgtype=response',
      Buffer.concat([head, body]),
      body,
    );
  }

  /** Bytes without an HTTP answer around them: a page saved before answers were kept, or a picture. */
  async resource(url: string, date: string, contentType: string, body: Buffer): Promise<WarcRecordInfo> {
    return this.#record(
      { 'WARC-Type': 'resource', 'WARC-Target-URI': url, 'WARC-Date': warcDate(date) },
      contentType || 'application/octet-stream',
      body,
      body,
    );
  }

  async #record(
    fields: Record<string, string>,
    contentType: string,
    block: Buffer,
    payload: Buffer,
  ): Promise<WarcRecordInfo> {
    const digest = `sha256:${createHash('sha256').update(payload).digest('hex')}`;
    const head = [
      'WARC/1.1',
      `WARC-Type: ${fields['WARC-Type']}`,
      `WARC-Record-ID: <urn:uuid:${randomUUID()}>`,
      `WARC-Date: ${fields['WARC-Date']}`,
      ...(fields['WARC-Target-URI'] ? [`WARC-Target-URI: ${oneLine(fields['WARC-Target-URI'])}`] : []),
      ...(fields['WARC-Filename'] ? [`WARC-Filename: ${fields['WARC-Filename']}`] : []),
      `Content-Type: ${oneLine(contentType)}`,
      ...(fields['WARC-Type'] === 'warcinfo' ? [] : [`WARC-Payload-Digest: ${digest}`]),
      `WARC-Block-Digest: sha256:${createHash('sha256').update(block).digest('hex')}`,
      `Content-Length: ${block.length}`,
    ];
    const record = Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8'), block, CRLF2]);
    const member = await gzipAsync(record);
    const offset = this.#out.bytes;
    await this.#out.write(member);
    return { offset, length: member.length, digest };
  }
}

const CRLF2 = Buffer.from('\r\n\r\n');

/** A WARC-Date: an ISO instant to the second (`2024-05-01T10:00:01Z`). */
export function warcDate(iso: string): string {
  const d = new Date(iso);
  return (Number.isNaN(d.getTime()) ? new Date(0) : d).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A header value on one line: a CR or LF inside it would end the header. */
function oneLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}
