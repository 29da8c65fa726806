import { ConfigError, CrawlerError } from '../../errors.js';

/*
 * What the S3 store sends, built by pure functions (tested without a server): object keys from blob keys, the
 * listing prefixes, the upload plan (one PUT or a multipart upload) and the project's errors from the SDK's.
 */

/** S3 and MinIO take at most this many parts in one multipart upload. */
export const MAX_PARTS = 10_000;
/** S3's smallest part (every part but the last). */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** A body this large or larger goes up in parts. @default 16 MiB */
export const DEFAULT_MULTIPART_BYTES = 16 * 1024 * 1024;
/** Size of one part. @default 8 MiB */
export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;

/**
 * The store's prefix as keys begin with it: '' or `path/` (GF_S3_PREFIX, slashes at either end dropped).
 * @throws ConfigError GF_S3_PREFIX for a prefix with `..` or an empty segment
 */
export function normalizePrefix(raw: string | undefined): string {
  const trimmed = (raw ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  if (trimmed.split('/').some((s) => s === '' || s === '.' || s === '..')) {
    throw new ConfigError(
      'GF_S3_PREFIX',
      `${JSON.stringify(raw)} is not a usable key prefix`,
      'use segments like greenfinger/user, without . or ..',
    );
  }
  return `${trimmed}/`;
}

/**
 * The object key of a blob key: the prefix, then the key exactly as the local path under `user/` (so a bucket
 * copied from `user/` or to it needs no renaming).
 * @throws CrawlerError BAD_INPUT for an absolute key or one that climbs out (`..`), naming the key
 */
export function objectKey(prefix: string, key: string): string {
  if (key.startsWith('/') || key.split('/').includes('..')) {
    throw new CrawlerError('BAD_INPUT', `blob key must be relative and stay inside user/: ${key}`);
  }
  return `${prefix}${key}`;
}

/** The blob key of an object key listed under `prefix`. */
export function blobKey(prefix: string, object: string): string {
  return object.startsWith(prefix) ? object.slice(prefix.length) : object;
}

/**
 * What `list(prefix)` reads, as the local store does: the object named `prefix` itself, and every object under the
 * folder `prefix/` (never `prefix10/…`). The empty prefix lists the whole store.
 */
export function listingOf(prefix: string, key: string): { exact: string | undefined; under: string } {
  const trimmed = key.replace(/\/+$/, '');
  if (trimmed === '') return { exact: undefined, under: prefix };
  const full = objectKey(prefix, trimmed);
  return { exact: full, under: `${full}/` };
}

export type UploadPlan = { kind: 'single' } | { kind: 'multipart'; partBytes: number; parts: number };

/**
 * One PUT below `multipartBytes`, else a multipart upload of `partBytes` parts, grown when the body would need more
 * than 10,000 of them and never below S3's 5 MiB floor.
 */
export function uploadPlan(
  bytes: number,
  options: { multipartBytes?: number | undefined; partBytes?: number | undefined } = {},
): UploadPlan {
  const threshold = options.multipartBytes ?? DEFAULT_MULTIPART_BYTES;
  if (bytes < threshold) return { kind: 'single' };
  let partBytes = Math.max(MIN_PART_BYTES, options.partBytes ?? DEFAULT_PART_BYTES);
  if (Math.ceil(bytes / partBytes) > MAX_PARTS) partBytes = Math.ceil(bytes / MAX_PARTS);
  return { kind: 'multipart', partBytes, parts: Math.max(1, Math.ceil(bytes / partBytes)) };
}

/** The bytes of a put, without copying a view (only its own bytes are sent, never the rest of its buffer). */
export function bodyOf(data: Uint8Array | string): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** Settings named by the S3 store's errors. */
export const S3_ENDPOINT_SETTING = 'GF_S3_ENDPOINT';

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'TimeoutError',
  'RequestTimeout',
]);

/** The SDK's error name or network code, when it has one. */
function codeOf(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.has(code)) return code;
    const name = (e as { name?: unknown }).name;
    if (typeof name === 'string' && UNREACHABLE.has(name)) return name;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/** Not there: a missing object or key (404 / NoSuchKey / NotFound). */
export function isNotFound(err: unknown): boolean {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'NoSuchKey' || name === 'NotFound' || (statusOf(err) === 404 && name !== 'NoSuchBucket');
}

/**
 * The project's error for a failed request: nothing answering names GF_S3_ENDPOINT, a missing bucket GF_S3_BUCKET,
 * refused credentials GF_S3_ACCESS_KEY_ID; anything else is a STORAGE error naming the object and the settings.
 */
export function s3Error(err: unknown, where: { endpoint: string; bucket: string }, doing: string): CrawlerError {
  if (err instanceof CrawlerError) return err;
  const code = codeOf(err);
  if (code) {
    return new ConfigError(
      S3_ENDPOINT_SETTING,
      `no S3 server answers at ${where.endpoint} (${code})`,
      `start it there or set ${S3_ENDPOINT_SETTING} to its url (e.g. http://127.0.0.1:9000 for MinIO); GF_FILE_TARGET=local keeps files on this machine`,
      err,
    );
  }
  const name = (err as { name?: unknown } | null)?.name;
  const status = statusOf(err);
  const message = err instanceof Error ? err.message : String(err);
  if (name === 'NoSuchBucket') {
    return new ConfigError(
      'GF_S3_BUCKET',
      `bucket ${where.bucket} does not exist at ${where.endpoint}`,
      'create it (e.g. `mc mb`) or set GF_S3_BUCKET to an existing bucket',
      err,
    );
  }
  if (
    name === 'InvalidAccessKeyId' ||
    name === 'SignatureDoesNotMatch' ||
    name === 'CredentialsProviderError' ||
    status === 401
  ) {
    return new ConfigError(
      'GF_S3_ACCESS_KEY_ID',
      `${where.endpoint} refused the credentials (${String(name)})`,
      'set GF_S3_ACCESS_KEY_ID and GF_S3_SECRET_ACCESS_KEY to a key of that server',
      err,
    );
  }
  return new CrawlerError(
    'STORAGE',
    `cannot ${doing} in s3://${where.bucket}: ${message}${status ? ` (HTTP ${status})` : ''}`,
    {
      cause: err,
      fix: 'check the bucket policy and the server log (GF_S3_BUCKET, GF_S3_ACCESS_KEY_ID); GF_FILE_TARGET=local keeps files on this machine',
    },
  );
}
