import type { DeleteObjectsCommandOutput, ListObjectsV2CommandOutput, S3Client } from '@aws-sdk/client-s3';
import { ConfigError } from '../../errors.js';
import type { BlobStore } from '../blob-store.js';
import {
  blobKey,
  bodyOf,
  isNotFound,
  listingOf,
  normalizePrefix,
  objectKey,
  S3_ENDPOINT_SETTING,
  s3Error,
  uploadPlan,
} from './s3-keys.js';

export interface S3BlobStoreOptions {
  /** GF_S3_ENDPOINT: the server's url (MinIO, R2…); empty = AWS S3 of the region. */
  endpoint?: string | undefined;
  /** GF_S3_BUCKET */
  bucket: string;
  /** GF_S3_REGION @default us-east-1 */
  region?: string | undefined;
  /** GF_S3_ACCESS_KEY_ID / GF_S3_SECRET_ACCESS_KEY; unset = the SDK's own chain (AWS_* variables, profile…). */
  accessKeyId?: string | undefined;
  secretAccessKey?: string | undefined;
  /** GF_S3_FORCE_PATH_STYLE: `endpoint/bucket/key` instead of `bucket.endpoint/key` (MinIO needs it). */
  forcePathStyle?: boolean | undefined;
  /** GF_S3_PREFIX: keys begin with it (`greenfinger/user/…`); '' = the bucket's root. */
  prefix?: string | undefined;
  /** Bodies this large or larger go up in parts. @default 16 MiB */
  multipartBytes?: number | undefined;
  /** Part size of a multipart upload. @default 8 MiB */
  partBytes?: number | undefined;
  /** Deadline of one request, in ms. @default 30000 */
  timeoutMs?: number | undefined;
}

/** Deadline of the reachability check `check` makes. */
export const S3_CHECK_TIMEOUT_MS = 5_000;
/** Keys removed per DeleteObjects request (S3's maximum). */
const DELETE_BATCH = 1000;
/** Listing pages read at most by one walk (1000 keys each). */
const MAX_LIST_PAGES = 1_000_000;

/**
 * The file layer in an S3-compatible bucket (MinIO, AWS S3, R2…). An object's key is the prefix, then the blob key
 * exactly as its path under `user/` (`assets/{catalogId}/v{n}/pages/ab/cd/{id}.html`), so `user/` copied into the
 * bucket (or back) is read as it is. A body of `multipartBytes` or more goes up as a multipart upload. Every member
 * of a cluster reads and writes the same bucket: the blob channel carries nothing.
 */
export class S3BlobStore implements BlobStore {
  readonly name = 's3';
  readonly bucket: string;
  readonly prefix: string;
  readonly endpoint: string;
  /** Made on first use: the SDK loads only when a request is sent (0.3 s kept off every start). */
  #client: Promise<S3Client> | undefined;
  readonly #options: S3BlobStoreOptions;
  readonly #where: { endpoint: string; bucket: string };

  constructor(options: S3BlobStoreOptions) {
    if (!options.bucket) {
      throw new ConfigError('GF_S3_BUCKET', 'no bucket is set', 'set GF_S3_BUCKET to the bucket that holds the files');
    }
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix);
    this.endpoint = options.endpoint
      ? checkEndpoint(options.endpoint)
      : `https://s3.${options.region ?? 'us-east-1'}.amazonaws.com`;
    this.#options = { ...options };
    this.#where = { endpoint: this.endpoint, bucket: this.bucket };
  }

  /**
   * One request with a short deadline and no retry: the server answers, the bucket is there and the key is taken.
   * @throws ConfigError GF_S3_ENDPOINT (nothing answers), GF_S3_BUCKET (no such bucket) or GF_S3_ACCESS_KEY_ID
   */
  async check(): Promise<void> {
    const { HeadBucketCommand } = await sdk();
    const client = await s3Client(this.#options, S3_CHECK_TIMEOUT_MS, 1);
    try {
      await client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      // HEAD answers carry no error name: a 404 here is the bucket, a 403 the credentials.
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404)
        throw s3Error(
          Object.assign(new Error('NoSuchBucket'), { name: 'NoSuchBucket' }),
          this.#where,
          'find the bucket',
        );
      if (status === 403)
        throw s3Error(
          Object.assign(new Error('refused'), { name: 'InvalidAccessKeyId' }),
          this.#where,
          'find the bucket',
        );
      throw s3Error(err, this.#where, 'find the bucket');
    } finally {
      client.destroy();
    }
  }

  async put(key: string, data: Uint8Array | string): Promise<void> {
    const Key = objectKey(this.prefix, key);
    const Body = bodyOf(data);
    const plan = uploadPlan(Body.byteLength, this.#options);
    try {
      const client = await this.#connection();
      if (plan.kind === 'single') {
        const { PutObjectCommand } = await sdk();
        await client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Body }));
      } else {
        const { Upload } = await import('@aws-sdk/lib-storage');
        const upload = new Upload({
          client,
          params: { Bucket: this.bucket, Key, Body },
          partSize: plan.partBytes,
          queueSize: 4,
          leavePartsOnError: false,
        });
        await upload.done();
      }
    } catch (err) {
      throw s3Error(err, this.#where, `write ${Key}`);
    }
  }

  async get(key: string): Promise<Buffer | undefined> {
    const Key = objectKey(this.prefix, key);
    try {
      const { GetObjectCommand } = await sdk();
      const answer = await (await this.#connection()).send(new GetObjectCommand({ Bucket: this.bucket, Key }));
      if (!answer.Body) return Buffer.alloc(0);
      return Buffer.from(await answer.Body.transformToByteArray());
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw s3Error(err, this.#where, `read ${Key}`);
    }
  }

  async getText(key: string): Promise<string | undefined> {
    return (await this.get(key))?.toString('utf8');
  }

  async exists(key: string): Promise<boolean> {
    const Key = objectKey(this.prefix, key);
    try {
      const { HeadObjectCommand } = await sdk();
      await (await this.#connection()).send(new HeadObjectCommand({ Bucket: this.bucket, Key }));
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw s3Error(err, this.#where, `look up ${Key}`);
    }
  }

  async stat(prefix: string): Promise<{ objects: number; bytes: number }> {
    let objects = 0;
    let bytes = 0;
    for await (const o of this.#objects(prefix)) {
      objects += 1;
      bytes += o.size;
    }
    return { objects, bytes };
  }

  /** Lists, then removes in batches of 1000; returns what it listed and removed. */
  async deletePrefix(prefix: string): Promise<{ objects: number; bytes: number }> {
    let objects = 0;
    let bytes = 0;
    let batch: Array<{ Key: string }> = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const Objects = batch;
      batch = [];
      let answer: DeleteObjectsCommandOutput;
      try {
        const { DeleteObjectsCommand } = await sdk();
        answer = await (await this.#connection()).send(
          new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects, Quiet: true } }),
        );
      } catch (err) {
        throw s3Error(err, this.#where, `delete under ${prefix}`);
      }
      const failed = answer.Errors?.[0];
      if (failed) throw s3Error(new Error(`${failed.Key}: ${failed.Message}`), this.#where, `delete under ${prefix}`);
    };
    // Listed first, deleted after: deleting while listing would move the listing's continuation under it.
    const keys: Array<{ Key: string }> = [];
    for await (const o of this.#objects(prefix)) {
      objects += 1;
      bytes += o.size;
      keys.push({ Key: o.key });
    }
    for (const k of keys) {
      batch.push(k);
      if (batch.length >= DELETE_BATCH) await flush();
    }
    await flush();
    return { objects, bytes };
  }

  async *list(prefix: string): AsyncIterable<string> {
    for await (const o of this.#objects(prefix)) yield blobKey(this.prefix, o.key);
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (client) (await client.catch(() => undefined))?.destroy();
  }

  #connection(): Promise<S3Client> {
    this.#client ??= s3Client(this.#options, this.#options.timeoutMs ?? 30_000, 3);
    return this.#client;
  }

  /** The objects `prefix` names, as the local store walks a path: the object itself, or everything in its folder. */
  async *#objects(prefix: string): AsyncIterable<{ key: string; size: number }> {
    const { exact, under } = listingOf(this.prefix, prefix);
    if (exact !== undefined) {
      try {
        const { HeadObjectCommand } = await sdk();
        const head = await (await this.#connection()).send(new HeadObjectCommand({ Bucket: this.bucket, Key: exact }));
        yield { key: exact, size: head.ContentLength ?? 0 };
        return;
      } catch (err) {
        if (!isNotFound(err)) throw s3Error(err, this.#where, `look up ${exact}`);
      }
    }
    let token: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      let answer: ListObjectsV2CommandOutput;
      try {
        const { ListObjectsV2Command } = await sdk();
        answer = await (await this.#connection()).send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: under, ContinuationToken: token }),
        );
      } catch (err) {
        throw s3Error(err, this.#where, `list ${under || '/'}`);
      }
      for (const o of answer.Contents ?? []) if (o.Key) yield { key: o.Key, size: o.Size ?? 0 };
      token = answer.IsTruncated ? answer.NextContinuationToken : undefined;
      if (!token) return;
    }
  }
}

function sdk(): Promise<typeof import('@aws-sdk/client-s3')> {
  return import('@aws-sdk/client-s3');
}

async function s3Client(options: S3BlobStoreOptions, timeoutMs: number, maxAttempts: number): Promise<S3Client> {
  // The SDK prints a multi-line notice on Node 20 at its first client; a command's output stays one line an error.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const { S3Client } = await sdk();
  const credentials =
    options.accessKeyId && options.secretAccessKey
      ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
      : undefined;
  return new S3Client({
    region: options.region || 'us-east-1',
    ...(options.endpoint ? { endpoint: checkEndpoint(options.endpoint) } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    ...(credentials ? { credentials } : {}),
    maxAttempts,
    // Checksums only where S3 requires them: older MinIO and other S3-compatible servers refuse the new trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A server that takes the connection and says nothing fails at the deadline (the SDK would only warn).
    requestHandler: {
      connectionTimeout: Math.min(timeoutMs, 5_000),
      requestTimeout: timeoutMs,
      throwOnRequestTimeout: true,
    },
  });
}

/**
 * The endpoint checked: an http(s) url with a host.
 * @throws ConfigError GF_S3_ENDPOINT
 */
export function checkEndpoint(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      S3_ENDPOINT_SETTING,
      `${JSON.stringify(raw)} is not a url`,
      'give the server, e.g. http://127.0.0.1:9000',
    );
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new ConfigError(
      S3_ENDPOINT_SETTING,
      `${raw} is not an http(s) url`,
      'give the server, e.g. http://127.0.0.1:9000',
    );
  }
  return url.href.replace(/\/+$/, '');
}
