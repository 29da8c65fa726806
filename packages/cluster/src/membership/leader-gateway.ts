import { randomUUID } from 'node:crypto';
import { CRAWLER_ERROR_CODES, CrawlerError, type CrawlerErrorCode, type Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from '../plumbing/keys.js';
import { closeRedis, connectRedis } from '../plumbing/redis-connection.js';
import { parseObject, str } from '../plumbing/wire.js';

/** One request to the leader (seed 000: the `leader` channel, request and reply with a request id). */
export interface LeaderRequest {
  id: string;
  op: string;
  args: unknown[];
  from: string;
}

/** A leader operation: plain data in, plain data out (it travels as JSON). */
export type LeaderHandler = (...args: never[]) => Promise<unknown>;

const REPLY_TTL_SECONDS = 120;

function errorOf(err: unknown): { code: CrawlerErrorCode; message: string; fix?: string } {
  if (err instanceof CrawlerError)
    return { code: err.code, message: err.message, ...(err.fix ? { fix: err.fix } : {}) };
  return { code: 'CLUSTER', message: err instanceof Error ? err.message : String(err) };
}

/**
 * The leader channel: requests are pushed on a list (`gf:<cluster>:leader:inbox`) that whoever leads pops; each answer
 * goes to a list of its own (`gf:<cluster>:reply:<id>`, expiring) that the asker pops with a timeout. A request
 * waiting when a leader dies is served by the next one. A CrawlerError thrown by the operation comes back as one,
 * with its code and fix.
 */
export class LeaderGateway {
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #url: string;
  readonly #from: string;
  readonly #log: Logger;
  #serving: { stop: boolean; loop: Promise<void>; conn: Redis } | undefined;

  constructor(redis: Redis, keys: ClusterKeys, options: { redisUrl: string; from: string; log: Logger }) {
    this.#redis = redis;
    this.#keys = keys;
    this.#url = options.redisUrl;
    this.#from = options.from;
    this.#log = options.log.child({ component: 'leader-gateway' });
  }

  /**
   * Ask the leader to run `op` and wait for its answer.
   * @throws CrawlerError CLUSTER when no member leads, or none answered within `timeoutMs`; the operation's own error
   */
  async call<T>(op: string, args: unknown[], options: { timeoutMs?: number } = {}): Promise<T> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    // No leader for a moment (one died, the next has not taken the lease yet) is fine: the request waits in the
    // inbox for it. No member at all is not.
    if (!(await this.#redis.exists(this.#keys.leader)) && !(await this.#anyMember())) {
      throw new CrawlerError('CLUSTER', `cluster "${this.#keys.cluster}" has no member running`, {
        fix: `start one with \`greenfinger node --cluster ${this.#keys.cluster}\` (GF_REDIS_URL names the Redis)`,
      });
    }
    const request: LeaderRequest = { id: randomUUID(), op, args, from: this.#from };
    // A connection of its own: the wait blocks it.
    const waiter = await connectRedis(this.#url, { role: 'leader-reply', log: this.#log });
    try {
      await this.#redis.lpush(this.#keys.inbox, JSON.stringify(request));
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const seconds = Math.max(1, Math.min(5, Math.ceil((deadline - Date.now()) / 1000)));
        const popped = await waiter.blpop(this.#keys.reply(request.id), seconds);
        if (!popped) continue;
        const reply = parseObject(popped[1]) ?? {};
        if (reply.ok === true) return reply.value as T;
        const e = (reply.error ?? {}) as Record<string, unknown>;
        const code = (CRAWLER_ERROR_CODES as readonly string[]).includes(String(e.code))
          ? (e.code as CrawlerErrorCode)
          : 'CLUSTER';
        const fix = str(e, 'fix');
        throw new CrawlerError(code, str(e, 'message') ?? `the leader could not ${op}`, fix ? { fix } : {});
      }
      throw new CrawlerError(
        'CLUSTER',
        `the leader of cluster "${this.#keys.cluster}" did not answer ${op} within ${timeoutMs / 1000} s`,
        {
          fix: 'see `greenfinger status --cluster` and the members’ logs; the operation may still be carried out',
        },
      );
    } finally {
      await closeRedis(waiter);
    }
  }

  async #anyMember(): Promise<boolean> {
    const names = await this.#redis.smembers(this.#keys.members);
    if (names.length === 0) return false;
    return (await this.#redis.mget(...names.map((n) => this.#keys.member(n)))).some((v) => v !== null);
  }

  /** Serve requests while this member leads: pop, run, answer; each request runs on its own (no queueing behind one). */
  async serve(handlers: Record<string, LeaderHandler>): Promise<void> {
    if (this.#serving) return;
    const conn = await connectRedis(this.#url, { role: 'leader-inbox', log: this.#log });
    const state = { stop: false, conn, loop: Promise.resolve() };
    state.loop = (async () => {
      while (!state.stop) {
        let popped: [string, string] | null = null;
        try {
          popped = await conn.brpop(this.#keys.inbox, 1);
        } catch (err) {
          if (state.stop) break;
          this.#log.warn({ err: (err as Error).message }, 'leader inbox not read; trying again');
          await new Promise((r) => setTimeout(r, 500));
        }
        if (popped) void this.#handle(popped[1], handlers);
      }
    })();
    this.#serving = state;
  }

  async #handle(text: string, handlers: Record<string, LeaderHandler>): Promise<void> {
    const o = parseObject(text);
    const id = o ? str(o, 'id') : undefined;
    const op = o ? str(o, 'op') : undefined;
    if (!o || !id || !op) {
      this.#log.warn({ text: text.slice(0, 200) }, 'leader request not understood; dropped');
      return;
    }
    let reply: Record<string, unknown>;
    const handler = handlers[op];
    try {
      if (!handler)
        throw new CrawlerError('CLUSTER', `the leader does not know the operation "${op}"`, {
          fix: 'run the same Greenfinger version on every member',
        });
      const args = Array.isArray(o.args) ? (o.args as never[]) : [];
      reply = { id, ok: true, value: (await handler(...args)) ?? null };
    } catch (err) {
      this.#log.info({ op, from: o.from, err: (err as Error).message }, 'leader request failed');
      reply = { id, ok: false, error: errorOf(err) };
    }
    try {
      const key = this.#keys.reply(id);
      await this.#redis.multi().rpush(key, JSON.stringify(reply)).expire(key, REPLY_TTL_SECONDS).exec();
    } catch (err) {
      this.#log.warn({ op, err: (err as Error).message }, 'leader reply not sent');
    }
  }

  /** Stop serving (the lease was lost or the member leaves). */
  async stopServing(): Promise<void> {
    const s = this.#serving;
    if (!s) return;
    this.#serving = undefined;
    s.stop = true;
    s.conn.disconnect();
    await s.loop.catch(() => undefined);
  }

  get serving(): boolean {
    return this.#serving !== undefined;
  }
}
