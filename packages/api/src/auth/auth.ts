import type { Greenfinger, UserRole } from '@greenfinger/core';
import { HttpRefusal } from '../envelope.js';
import { LoginLimiter } from './login-limiter.js';
import type { TokenClaims, TokenSigner } from './token.js';

/** Who made a request. */
export interface Principal {
  name: string;
  role: UserRole;
  tokenId: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

/** What `POST /v2/login` answers. */
export interface LoginAnswer {
  token: string;
  username: string;
  roles: string[];
  expiresInSeconds: number;
}

/**
 * Password checks in flight at most; a sign-in beyond is refused with 429 at once. Each check also waits its turn
 * for the one scrypt slot (core's password-hash.ts), so a flood of sign-ins cannot fill the thread pool file reads use.
 */
export const MAX_PASSWORD_CHECKS = 8;

export interface AuthOptions {
  limiter?: LoginLimiter;
  now?: () => number;
  /** @default MAX_PASSWORD_CHECKS */
  maxPasswordChecks?: number;
}

export const ADD_USER_HINT =
  'no user exists yet: add one with `greenfinger user add NAME --role admin --password-stdin`, then sign in';

/**
 * Sign-in over the users in the database: a token per sign-in (TokenSigner), failed attempts limited per user at an
 * address and per address (LoginLimiter), password checks in flight capped, sign-out by revoking the token's id. Every request re-reads the user, so a deleted user or a
 * changed role takes effect at once.
 */
export class Auth {
  readonly #gf: Greenfinger;
  readonly #signer: TokenSigner;
  readonly #limiter: LoginLimiter;
  readonly #now: () => number;
  readonly #maxChecks: number;
  /** Password checks in flight. */
  #checking = 0;

  constructor(gf: Greenfinger, signer: TokenSigner, options: AuthOptions = {}) {
    this.#gf = gf;
    this.#signer = signer;
    this.#now = options.now ?? Date.now;
    this.#limiter = options.limiter ?? new LoginLimiter({}, this.#now);
    this.#maxChecks = Math.max(1, options.maxPasswordChecks ?? MAX_PASSWORD_CHECKS);
  }

  async login(username: string, password: string, address: string): Promise<LoginAnswer> {
    // Counted before the password is checked (and refunded when it is right): concurrent wrong passwords past the
    // limit are refused without a check.
    const attempt = this.#limiter.begin(username, address);
    if (attempt.wait > 0) {
      throw new HttpRefusal(429, `too many failed sign-ins: try again in ${attempt.wait} s`, {
        'retry-after': String(attempt.wait),
      });
    }
    if (this.#checking >= this.#maxChecks) {
      this.#limiter.refund(attempt);
      throw new HttpRefusal(429, 'too many sign-ins at once: try again in 1 s', { 'retry-after': '1' });
    }
    this.#checking++;
    let user: Awaited<ReturnType<Greenfinger['users']['verify']>>;
    try {
      user = await this.#gf.users.verify(username, password);
    } catch (err) {
      this.#limiter.refund(attempt);
      throw err;
    } finally {
      this.#checking--;
    }
    if (!user) {
      const none = (await this.#gf.users.count()) === 0;
      throw new HttpRefusal(401, none ? ADD_USER_HINT : 'wrong user name or password');
    }
    this.#limiter.succeeded(attempt);
    const cred = await this.#gf.users.credentials(user.name);
    if (!cred) throw new HttpRefusal(401, 'wrong user name or password');
    const { token, claims } = this.#signer.sign({ name: user.name, role: user.role, stamp: cred.stamp }, this.#now());
    return {
      token,
      username: user.name,
      roles: [user.role.toUpperCase()],
      expiresInSeconds: claims.exp - Math.floor(this.#now() / 1000),
    };
  }

  /** The principal of an `Authorization: Bearer …` header, or the 401 that explains what is wrong. */
  async authenticate(header: string | undefined): Promise<Principal> {
    const token = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
    if (!token)
      throw await this.#unauthorized('sign in first: POST /v2/login, then send Authorization: Bearer <token>');
    const claims = this.#signer.verify(token, this.#now());
    if (claims === 'expired') throw await this.#unauthorized('your sign-in expired: sign in again');
    if (typeof claims === 'string') throw await this.#unauthorized('this token is not valid here: sign in again');
    if (await this.#gf.users.isRevoked(claims.jti)) {
      throw await this.#unauthorized('this token was signed out: sign in again');
    }
    const cred = await this.#gf.users.credentials(claims.sub);
    if (!cred) throw await this.#unauthorized(`user "${claims.sub}" no longer exists: sign in as another user`);
    if (cred.stamp !== claims.pw) throw await this.#unauthorized('the password was changed since: sign in again');
    return principal(claims, cred.user.role);
  }

  async logout(who: Principal): Promise<void> {
    await this.#gf.users.revoke(who.tokenId, new Date(who.exp * 1000).toISOString());
  }

  async #unauthorized(message: string): Promise<HttpRefusal> {
    const none = (await this.#gf.users.count()) === 0;
    return new HttpRefusal(401, none ? ADD_USER_HINT : message, { 'www-authenticate': 'Bearer' });
  }
}

function principal(claims: TokenClaims, role: UserRole): Principal {
  return { name: claims.sub, role, tokenId: claims.jti, exp: claims.exp };
}
