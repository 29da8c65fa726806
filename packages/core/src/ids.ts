import { createHash } from 'node:crypto';
import { v5, v7 } from 'uuid';

/**
 * Ids exactly as the design's "Data model and ids": a catalog is UUID v7 (random, time ordered);
 * everything else is UUID v5 under the catalog id, so the whole chain is idempotent.
 * Always the 36-character lower-case text form. The UUIDs themselves come from the `uuid` package (RFC 9562).
 */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/**
 * RFC 9562 UUID v5 (SHA-1 of namespace bytes + UTF-8 name).
 * @throws TypeError when the namespace is not a UUID in 36-character lower-case text form
 */
export function uuidv5(namespace: string, name: string): string {
  if (!isUuid(namespace)) throw new TypeError(`not a UUID in 36-character text form: ${namespace}`);
  return v5(name, namespace);
}

/**
 * RFC 9562 UUID v7: 48-bit unix milliseconds, then random bits. Without `now` the clock is read and ids made in the
 * same millisecond by this process still sort in the order they were made (the package's counter).
 */
export function uuidv7(now?: number): string {
  return now === undefined ? v7() : v7({ msecs: now });
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
