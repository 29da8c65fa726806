import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** The Redis tests use. @default redis://127.0.0.1:6379 */
export const testRedisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

type Reply = string | number | null | Reply[];

/** Parse one RESP2 reply at `at`; undefined when the buffer does not hold all of it yet. */
function parse(buf: Buffer, at: number): { value: Reply | Error; next: number } | undefined {
  const eol = buf.indexOf('\r\n', at);
  if (eol < 0) return undefined;
  const type = String.fromCharCode(buf[at]!);
  const line = buf.toString('utf8', at + 1, eol);
  const next = eol + 2;
  if (type === '+') return { value: line, next };
  if (type === '-') return { value: new Error(line), next };
  if (type === ':') return { value: Number(line), next };
  if (type === '$') {
    const n = Number(line);
    if (n < 0) return { value: null, next };
    if (buf.length < next + n + 2) return undefined;
    return { value: buf.toString('utf8', next, next + n), next: next + n + 2 };
  }
  if (type === '*') {
    const n = Number(line);
    if (n < 0) return { value: null, next };
    const items: Reply[] = [];
    let pos = next;
    for (let i = 0; i < n; i++) {
      const item = parse(buf, pos);
      if (!item) return undefined;
      if (item.value instanceof Error) return { value: item.value, next: item.next };
      items.push(item.value);
      pos = item.next;
    }
    return { value: items, next: pos };
  }
  return { value: new Error(`unexpected RESP type '${type}'`), next: buf.length };
}

/** A minimal RESP2 connection: enough to ping, authenticate, scan and delete test keys. */
class RespConnection {
  private buf = Buffer.alloc(0);
  private waiting: { resolve: (r: Reply) => void; reject: (e: Error) => void }[] = [];
  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.buf = Buffer.concat([this.buf, chunk]);
      for (;;) {
        const r = parse(this.buf, 0);
        if (!r) break;
        this.buf = this.buf.subarray(r.next);
        const w = this.waiting.shift();
        if (r.value instanceof Error) w?.reject(r.value);
        else w?.resolve(r.value);
      }
    });
    const fail = (err: Error) => {
      for (const w of this.waiting.splice(0)) w.reject(err);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('redis connection closed')));
  }

  static open(url: URL, timeoutMs = 5000): Promise<RespConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: url.hostname || '127.0.0.1', port: Number(url.port || 6379) });
      const timer = setTimeout(() => socket.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      socket.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new RespConnection(socket));
      });
    });
  }

  command(...args: string[]): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      const parts = [`*${args.length}\r\n`];
      for (const a of args) parts.push(`$${Buffer.byteLength(a)}\r\n${a}\r\n`);
      this.socket.write(parts.join(''));
    });
  }

  close(): void {
    this.socket.end();
    this.socket.destroy();
  }
}

async function open(): Promise<RespConnection> {
  const url = new URL(testRedisUrl);
  let conn: RespConnection;
  try {
    conn = await RespConnection.open(url);
    if (url.password) {
      const auth = url.username
        ? [decodeURIComponent(url.username), decodeURIComponent(url.password)]
        : [decodeURIComponent(url.password)];
      await conn.command('AUTH', ...auth);
    }
    const db = url.pathname.replace(/^\//, '');
    if (db) await conn.command('SELECT', db);
    await conn.command('PING');
  } catch (err) {
    throw new Error(
      `Redis is not reachable at ${url.host}: ${(err as Error).message}. Run \`npm test\` (it starts redis-server) or set REDIS_URL`,
      { cause: err },
    );
  }
  return conn;
}

export interface TestRedis extends AsyncDisposable {
  /** REDIS_URL to hand to the code under test. */
  readonly url: string;
  /** A key prefix of its own (`gf_test_<random>:`): use it for every key and stream the test creates. */
  readonly prefix: string;
  /** Keys that currently carry the prefix. */
  keys(): Promise<string[]>;
  /** Delete every key that carries the prefix. Idempotent. */
  cleanup(): Promise<void>;
}

/** A unique key prefix on the REDIS_URL server, whose keys are deleted on dispose. Checks the server answers. */
export async function createTestRedis(): Promise<TestRedis> {
  const prefix = `gf_test_${randomBytes(6).toString('hex')}:`;
  (await open()).close();
  const keys = async () => {
    const conn = await open();
    try {
      const found = new Set<string>();
      let cursor = '0';
      for (let i = 0; i < 10_000; i++) {
        const [next, batch] = (await conn.command('SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000')) as [
          string,
          string[],
        ];
        for (const k of batch) found.add(k);
        cursor = next;
        if (cursor === '0') break;
      }
      return [...found];
    } finally {
      conn.close();
    }
  };
  const cleanup = async () => {
    const all = await keys();
    if (all.length === 0) return;
    const conn = await open();
    try {
      for (let i = 0; i < all.length; i += 500) await conn.command('DEL', ...all.slice(i, i + 500));
    } finally {
      conn.close();
    }
  };
  return { url: testRedisUrl, prefix, keys, cleanup, [Symbol.asyncDispose]: cleanup };
}
