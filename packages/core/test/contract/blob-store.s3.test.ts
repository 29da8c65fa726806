import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, GetObjectCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { S3BlobStore } from '@greenfinger/core/internal';
import { describe } from 'vitest';
import { describeBlobStoreContract } from './blob-store.contract.js';

/**
 * The BlobStore contract, word for word the local store's, against a real S3-compatible server (MinIO, S3, R2):
 * only when GF_TEST_S3_URL is set (scripts/test-external.sh starts MinIO with Docker), reported skipped otherwise;
 * never a stand-in. Each test writes under a prefix of its own (`gf-test-<random>/`), removed after it.
 * GF_TEST_S3_BUCKET (default greenfinger-test, made when missing), GF_TEST_S3_ACCESS_KEY_ID,
 * GF_TEST_S3_SECRET_ACCESS_KEY, GF_TEST_S3_REGION (default us-east-1), GF_TEST_S3_FORCE_PATH_STYLE (default true).
 */
const env = process.env;
const endpoint = env.GF_TEST_S3_URL ?? '';
const bucket = env.GF_TEST_S3_BUCKET || 'greenfinger-test';
const region = env.GF_TEST_S3_REGION || 'us-east-1';
const forcePathStyle = (env.GF_TEST_S3_FORCE_PATH_STYLE ?? 'true') !== 'false';
const accessKeyId = env.GF_TEST_S3_ACCESS_KEY_ID || undefined;
const secretAccessKey = env.GF_TEST_S3_SECRET_ACCESS_KEY || undefined;

/** The SDK itself, beside the store: what the contract reads back, and the bucket made once. */
function rawClient(): S3Client {
  return new S3Client({
    endpoint,
    region,
    forcePathStyle,
    ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
  });
}

let bucketReady: Promise<void> | undefined;
function ensureBucket(client: S3Client): Promise<void> {
  bucketReady ??= client.send(new HeadBucketCommand({ Bucket: bucket })).then(
    () => undefined,
    async () => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    },
  );
  return bucketReady;
}

describe.skipIf(!endpoint)(`S3 at GF_TEST_S3_URL (${endpoint || 'unset: skipped'})`, () => {
  describeBlobStoreContract('S3BlobStore', async () => {
    const raw = rawClient();
    await ensureBucket(raw);
    const prefix = `gf-test-${randomBytes(6).toString('hex')}/`;
    const store = new S3BlobStore({ endpoint, bucket, region, forcePathStyle, accessKeyId, secretAccessKey, prefix });
    return {
      store,
      readBeside: async (key) => {
        try {
          const answer = await raw.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}${key}` }));
          return Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
        } catch (err) {
          if ((err as { name?: string }).name === 'NoSuchKey') return undefined;
          throw err;
        }
      },
      // S3 and MinIO refuse object keys over 1024 bytes: no store can write this one.
      unwritable: async () => ({ key: `assets/blocked/${'x'.repeat(1100)}/2.txt`, fix: /GF_S3_/ }),
      dispose: async () => {
        await store.deletePrefix('');
        await store.close();
        raw.destroy();
      },
    };
  });
});
