import type { Settings } from '../config.js';
import { ConfigError } from '../errors.js';
import type { BlobStore } from '../storage/blob-store.js';
import { LocalBlobStore } from '../storage/local-blob-store.js';
import { S3BlobStore } from '../storage/s3/s3-blob-store.js';
import { QdrantFamily } from '../vector/qdrant/qdrant-family.js';

/** A store on another server: `check` asks it once, with a short deadline, before a command or `serve` goes on. */
export interface CheckedStore {
  check(): Promise<void>;
}

/**
 * The file layer GF_FILE_TARGET names: user/ on this disk (local) or an S3-compatible bucket (s3, GF_S3_*).
 * @throws ConfigError GF_S3_BUCKET when s3 is chosen without a bucket
 */
export function fileTarget(settings: Readonly<Settings>, userDir: string): BlobStore {
  if (settings.fileTarget !== 's3') return new LocalBlobStore(userDir);
  if (!settings.s3Bucket) {
    throw new ConfigError(
      'GF_S3_BUCKET',
      'GF_FILE_TARGET=s3 needs a bucket',
      'set GF_S3_BUCKET (and GF_S3_ENDPOINT for MinIO, R2…), or GF_FILE_TARGET=local',
    );
  }
  return new S3BlobStore({
    endpoint: settings.s3Endpoint,
    bucket: settings.s3Bucket,
    region: settings.s3Region,
    accessKeyId: settings.s3AccessKeyId,
    secretAccessKey: settings.s3SecretAccessKey,
    forcePathStyle: settings.s3ForcePathStyle,
    prefix: settings.s3Prefix,
  });
}

/**
 * The Qdrant family when GF_VECTOR_STORE=qdrant, else undefined (the factory builds its embedded default).
 * @throws ConfigError GF_QDRANT_URL when qdrant is chosen without a url
 */
export function qdrantTarget(settings: Readonly<Settings>, space: string | undefined): QdrantFamily | undefined {
  if (settings.vectorStore !== 'qdrant') return undefined;
  if (!settings.qdrantUrl) {
    throw new ConfigError(
      'GF_QDRANT_URL',
      'GF_VECTOR_STORE=qdrant needs the server',
      'set GF_QDRANT_URL, e.g. http://127.0.0.1:6333, or GF_VECTOR_STORE=sqlite',
    );
  }
  return new QdrantFamily({
    url: settings.qdrantUrl,
    apiKey: settings.qdrantApiKey,
    collection: settings.vectorCollection,
    space,
  });
}

/** Stores of this module that live on another server (S3BlobStore, QdrantFamily), for `checkStores`. */
export function isCheckedStore(store: unknown): store is CheckedStore {
  return store instanceof S3BlobStore || store instanceof QdrantFamily;
}
