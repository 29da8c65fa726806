import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { UserRole } from '@greenfinger/core';

/** What a sign-in token carries: who, which role, until when, and its own id (for sign-out). */
export interface TokenClaims {
  /** The user name. */
  sub: string;
  role: UserRole;
  /** Expiry, seconds since the epoch. */
  exp: number;
  /** The token's id: signing out revokes it. */
  jti: string;
  /** The stamp of the user's password when it was signed: a new password ends the token. */
  pw: string;
}

/** Checked tokens kept by a signer (see TokenSigner's #verified). */
const VERIFIED_KEPT = 1024;

/** Why a token was refused, in words a person can act on. */
export type TokenRefusal = 'malformed' | 'bad-signature' | 'expired';

/**
 * Stateless sign-in tokens: `base64url(claims JSON) . base64url(HMAC-SHA256(key, first part))`. A restart keeps them
 * valid when the key is kept (GF_TOKEN_SECRET, or the key file under system/); sign-out is a revocation list.
 */
export class TokenSigner {
  readonly #key: Buffer;
  readonly ttlSeconds: number;
  /**
   * Tokens whose signature was checked, with their claims: every request of a client sends the same token, and the
   * check (HMAC, base64, JSON) is the same each time. Expiry is still checked on each use; revocation and the
   * user's row are the caller's (Auth reads them on every request). The oldest entry goes first when it is full.
   */
  readonly #verified = new Map<string, Readonly<TokenClaims>>();

  constructor(key: string | Buffer, ttlSeconds: number) {
    this.#key = Buffer.isBuffer(key) ? key : Buffer.from(key, 'utf8');
    this.ttlSeconds = ttlSeconds;
  }

  sign(
    user: { name: string; role: UserRole; stamp: string },
    now = Date.now(),
  ): { token: string; claims: TokenClaims } {
    const claims: TokenClaims = {
      sub: user.name,
      role: user.role,
      exp: Math.floor(now / 1000) + this.ttlSeconds,
      jti: randomUUID(),
      pw: user.stamp,
    };
    const body = Buffer.from(JSON.stringify(claims), 'utf8').toString('base64url');
    return { token: `${body}.${this.#mac(body)}`, claims };
  }

  verify(token: string, now = Date.now()): TokenClaims | TokenRefusal {
    const known = this.#verified.get(token);
    if (known) return known.exp * 1000 <= now ? 'expired' : known;
    const dot = token.indexOf('.');
    if (dot <= 0 || dot !== token.lastIndexOf('.') || token.length > 4096) return 'malformed';
    const body = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.#mac(body), 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad-signature';
    const claims = parseClaims(body);
    if (!claims) return 'malformed';
    if (this.#verified.size >= VERIFIED_KEPT) this.#verified.delete(this.#verified.keys().next().value as string);
    this.#verified.set(token, Object.freeze(claims));
    return claims.exp * 1000 <= now ? 'expired' : claims;
  }

  #mac(body: string): string {
    return createHmac('sha256', this.#key).update(body).digest('base64url');
  }
}

function parseClaims(body: string): TokenClaims | undefined {
  try {
    const c = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Partial<TokenClaims>;
    const ok =
      typeof c.sub === 'string' &&
      (c.role === 'admin' || c.role === 'support') &&
      typeof c.exp === 'number' &&
      typeof c.jti === 'string' &&
      typeof c.pw === 'string';
    return ok ? (c as TokenClaims) : undefined;
  } catch {
    return undefined;
  }
}

/** `8h`, `30m`, `90s`, `2d` or plain seconds, as seconds. */
export function ttlSeconds(ttl: string): number {
  const m = /^(\d+)([smhd]?)$/.exec(ttl.trim());
  if (!m) throw new TypeError(`not a duration: ${ttl}`);
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}

/** A fresh random key, as the key file holds it. */
export function randomKey(): string {
  return randomBytes(32).toString('base64url');
}
