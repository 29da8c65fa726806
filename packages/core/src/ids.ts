import { createHash, randomBytes } from 'node:crypto';

/**
 * Ids exactly as the design's "Data model and ids": a catalog is UUID v7 (random, time ordered);
 * everything else is UUID v5 under the catalog id, so the whole chain is idempotent.
 * Always the 36-character text form.
 */

const HEX: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function format(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < 16; i++) {
    s += HEX[b[i] as number];
    if (i === 3 || i === 5 || i === 7 || i === 9) s += '-';
  }
  return s;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

function parse(uuid: string): Buffer {
  if (!isUuid(uuid)) throw new TypeError(`not a UUID in 36-character text form: ${uuid}`);
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/** RFC 9562 UUID v5 (SHA-1 of namespace bytes + UTF-8 name). */
export function uuidv5(namespace: string, name: string): string {
  const hash = createHash('sha1').update(parse(namespace)).update(name, 'utf8').digest();
  const b = hash.subarray(0, 16);
  b[6] = ((b[6] as number) & 0x0f) | 0x50;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  return format(b);
}

/** RFC 9562 UUID v7: 48-bit unix milliseconds, then random bits. */
export function uuidv7(now: number = Date.now()): string {
  const b = randomBytes(16);
  const ms = BigInt(now);
  for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
  b[6] = ((b[6] as number) & 0x0f) | 0x70;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  return format(b);
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** char(64): sha256 of the normalised url. Feeds resource.id. */
export function urlHash(normalizedUrl: string): string {
  return sha256Hex(normalizedUrl);
}

export const ids = {
  catalog: (): string => uuidv7(),
  resource: (catalogId: string, version: number, urlHashHex: string): string =>
    uuidv5(catalogId, `${version}|${urlHashHex}`),
  image: (catalogId: string, version: number, contentHash: string): string =>
    uuidv5(catalogId, `${version}|${contentHash}`),
  resourceImage: (catalogId: string, version: number, resourceId: string, imageId: string): string =>
    uuidv5(catalogId, `${version}|${resourceId}|${imageId}`),
  textPoint: (catalogId: string, version: number, resourceId: string, chunkIndex: number): string =>
    uuidv5(catalogId, `${version}|${resourceId}|${chunkIndex}`),
  imagePoint: (catalogId: string, version: number, imageId: string): string =>
    uuidv5(catalogId, `${version}|image|${imageId}`),
};

/** The two-level fan-out `ab/cd/` taken from an id. */
export function fanout(id: string): string {
  return `${id.slice(0, 2)}/${id.slice(2, 4)}`;
}
