import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

/** The parameters new hashes use: N=16384 r=8 p=1, a 16-byte salt and a 32-byte key. */
export const SCRYPT_DEFAULTS = { N: 16384, r: 8, p: 1, saltBytes: 16, keyBytes: 32 } as const;

interface ParsedHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  key: Buffer;
}

/**
 * scrypt runs on libuv's thread pool (4 threads), the pool file reads use too: 60 sign-ins at once held every
 * thread and took stored-page reads from 0.8 ms to seconds. One derivation runs at a time; the others wait in line
 * here, on the event loop, not in the pool.
 */
const SCRYPT_SLOTS = 1;
let running = 0;
const waiting: Array<() => void> = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= SCRYPT_SLOTS) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** Derivations waiting for the scrypt slot, and running (for tests and the node's figures). */
export function scryptQueue(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}

function derive(password: string, salt: Buffer, keyBytes: number, params: ScryptOptions): Promise<Buffer> {
  const { N = 16384, r = 8, p = 1 } = params;
  // Node refuses more than 32 MiB by default; allow what the parameters need (128·N·r) with room to spare.
  const maxmem = 256 * N * r * p + 1024 * 1024;
  return inTurn(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password.normalize('NFC'), salt, keyBytes, { N, r, p, maxmem }, (err, key) =>
          err ? reject(err) : resolve(key),
        );
      }),
  );
}

/** `scrypt$N$r$p$salt$hash` with sane bounds, or undefined when the text is not one. */
function parse(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map((s) => (/^\d{1,8}$/.test(s) ? Number(s) : Number.NaN)) as [
    number,
    number,
    number,
  ];
  const powerOfTwo = N >= 2 && (N & (N - 1)) === 0;
  if (!powerOfTwo || N > 2 ** 20 || !(r >= 1 && r <= 32) || !(p >= 1 && p <= 16)) return undefined;
  const salt = Buffer.from(parts[4] as string, 'base64url');
  const key = Buffer.from(parts[5] as string, 'base64url');
  if (salt.length < 8 || key.length < 16 || key.length > 64) return undefined;
  return { N, r, p, salt, key };
}

/** A new hash of `password`: `scrypt$16384$8$1$<salt b64url>$<hash b64url>` (the password is NFC-normalised first). */
export async function hashPassword(password: string): Promise<string> {
  const { N, r, p, saltBytes, keyBytes } = SCRYPT_DEFAULTS;
  const salt = randomBytes(saltBytes);
  const key = await derive(password, salt, keyBytes, { N, r, p });
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/**
 * Whether `password` matches `stored`, with the parameters `stored` names, compared in constant time.
 * A stored value that is not a scrypt string never matches.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.key.length, parsed);
  return timingSafeEqual(key, parsed.key);
}

/** Whether `stored` is a hash `verifyPassword` can read. */
export function isPasswordHash(stored: string): boolean {
  return parse(stored) !== undefined;
}
