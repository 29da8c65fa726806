import { randomBytes } from 'node:crypto';
import { silentLogger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import { ClusterKeys } from '../../src/plumbing/keys.js';
import { closeRedis, connectRedis } from '../../src/plumbing/redis-connection.js';

/** The Redis the tests use: REDIS_URL (scripts/test.sh sets it), else the default port on loopback. */
export const testRedisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

export interface TestCluster extends AsyncDisposable {
  readonly name: string;
  readonly keys: ClusterKeys;
  /** A connection for the test itself. */
  readonly redis: Redis;
  /** Another connection (closed with the cluster). */
  connect(role?: string): Promise<Redis>;
  /** Keys under the cluster's prefix now. */
  keysLeft(): Promise<string[]>;
  /** Delete every key under the prefix and close the connections. */
  close(): Promise<void>;
}

/** A cluster name of its own (`t<random>`), so tests never see each other's keys; cleaned on close. */
export async function testCluster(): Promise<TestCluster> {
  const name = `t${randomBytes(5).toString('hex')}`;
  const keys = new ClusterKeys(name);
  const log = silentLogger();
  const opened: Redis[] = [];
  const connect = async (role = 'test') => {
    const r = await connectRedis(testRedisUrl, { role, log });
    opened.push(r);
    return r;
  };
  const redis = await connect();
  const keysLeft = async () => {
    const out: string[] = [];
    let cursor = '0';
    for (let i = 0; i < 10_000; i++) {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${keys.prefix}*`, 'COUNT', 1000);
      out.push(...found);
      cursor = next;
      if (cursor === '0') break;
    }
    return out.sort();
  };
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      const left = await keysLeft();
      for (let i = 0; i < left.length; i += 500) await redis.del(...left.slice(i, i + 500));
      for (const r of opened) await closeRedis(r);
    })();
    return closed;
  };
  return { name, keys, redis, connect, keysLeft, close, [Symbol.asyncDispose]: close };
}

/** Wait until `check` holds, polling every 25 ms; throws with `what` after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
