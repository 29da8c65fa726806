import { CrawlerError, type Logger } from '@greenfinger/core';
import { Redis } from 'ioredis';

/** The url with its password masked, for messages and logs. */
export function maskRedisUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*):[^@/]*@/, '$1:***@');
}

/**
 * One connection to the cluster's Redis, connected before it is returned. A server that does not answer is one line
 * naming the url and the fix. Every connection logs its errors (ioredis reconnects by itself), so none goes unheard.
 */
export async function connectRedis(url: string, options: { role: string; log: Logger }): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectionName: `gf-${options.role}`,
    connectTimeout: 5000,
    maxRetriesPerRequest: 5,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let connected = false;
  redis.on('error', (err: Error) => {
    if (connected) options.log.warn({ err: err.message, role: options.role }, 'redis connection error; reconnecting');
  });
  try {
    await redis.connect();
    connected = true;
  } catch (err) {
    redis.disconnect();
    throw new CrawlerError(
      'CLUSTER',
      `Redis is not reachable at ${maskRedisUrl(url)}: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err, fix: 'start redis-server (docs/cluster.md) or point GF_REDIS_URL at one' },
    );
  }
  return redis;
}

/** Close a connection: QUIT when it is up, disconnect otherwise; never throws. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'end') return;
  try {
    await Promise.race([redis.quit(), new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
  } catch {
    // already gone
  }
  redis.disconnect();
}
