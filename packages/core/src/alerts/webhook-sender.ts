import { createHmac } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Logger } from 'pino';
import { privateAddressKind } from './webhook-address.js';

/** What became of one webhook POST, as `catalog show`, `alert list` and the API show it. */
export interface WebhookDelivery {
  url: string;
  /** `delivered` (a 2xx), `failed` (retries spent, or an answer not worth retrying) or `refused` (SSRF). */
  status: 'delivered' | 'failed' | 'refused';
  /** The receiver's last HTTP status; absent when none answered. */
  httpStatus?: number | undefined;
  /** POSTs made (0 when refused before any). */
  attempts: number;
  /** When the delivery ended (ISO). */
  at: string;
  /** The run whose change set it carried. */
  runId: string;
  /** Why it failed or was refused, in one line. */
  error?: string | undefined;
}

export interface WebhookSenderOptions {
  /** GF_WEBHOOK_SECRET: the HMAC key; undefined: unsigned. */
  secret?: string | undefined;
  /** GF_WEBHOOK_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  log: Logger;
  /** POSTs at most per delivery. @default 5 */
  maxAttempts?: number | undefined;
  /** The first wait before a retry, doubled each time. @default 500 */
  baseDelayMs?: number | undefined;
  /** One POST's bound (connect, send, the answer's head). @default 10000 */
  attemptTimeoutMs?: number | undefined;
  /** A delivery's bound over all its attempts and waits. @default 60000 */
  deadlineMs?: number | undefined;
}

/** An address refused before a connection was made: not worth a retry. */
class RefusedAddress extends Error {}

/** The value of `X-Greenfinger-Signature` for a body: `sha256=` and the hex HMAC-SHA256 of its exact bytes. */
export function webhookSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/**
 * Sends one JSON body to one webhook url (issue 27 item 6): POST, `X-Greenfinger-Event`, signed when a secret is
 * set, retried with exponential backoff on a network error, a 5xx or a 429 (bounded in count and time), never
 * following a redirect, and never to a loopback, link-local or private address unless allowed — judged on the
 * addresses the host resolves to at send time, and the connection made to the address judged (no second lookup).
 */
export class WebhookSender {
  readonly #o: Required<Omit<WebhookSenderOptions, 'secret'>> & { secret: string | undefined };

  constructor(options: WebhookSenderOptions) {
    this.#o = {
      secret: options.secret,
      allowPrivate: options.allowPrivate,
      log: options.log,
      maxAttempts: options.maxAttempts ?? 5,
      baseDelayMs: options.baseDelayMs ?? 500,
      attemptTimeoutMs: options.attemptTimeoutMs ?? 10_000,
      deadlineMs: options.deadlineMs ?? 60_000,
    };
  }

  /** POST `body` to `url` as event `event`; never throws, the delivery says what happened. */
  async send(url: string, event: string, body: string, runId: string): Promise<WebhookDelivery> {
    const o = this.#o;
    const started = Date.now();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'greenfinger-webhook',
      'x-greenfinger-event': event,
    };
    if (o.secret) headers['x-greenfinger-signature'] = webhookSignature(o.secret, body);
    else o.log.warn({ url }, 'webhook sent unsigned: set GF_WEBHOOK_SECRET to sign it');
    let attempts = 0;
    let httpStatus: number | undefined;
    let error: string | undefined;
    const end = (status: WebhookDelivery['status']): WebhookDelivery => {
      const d: WebhookDelivery = { url, status, attempts, at: new Date().toISOString(), runId, httpStatus, error };
      if (status === 'delivered') o.log.info({ url, attempts, httpStatus }, 'webhook delivered');
      else o.log.warn({ url, attempts, httpStatus }, `webhook ${status}: ${error}`);
      return d;
    };
    while (attempts < o.maxAttempts) {
      attempts++;
      try {
        httpStatus = await this.#post(url, headers, body);
        error = undefined;
        if (httpStatus >= 200 && httpStatus < 300) return end('delivered');
        if (httpStatus >= 300 && httpStatus < 400) {
          error = `the receiver answered ${httpStatus} (a redirect): redirects are not followed, give the final url`;
          return end('failed');
        }
        error = `the receiver answered ${httpStatus}`;
        if (httpStatus !== 429 && httpStatus < 500) return end('failed');
      } catch (err) {
        if (err instanceof RefusedAddress) {
          attempts--;
          error = err.message;
          return end('refused');
        }
        error = err instanceof Error ? err.message : String(err);
      }
      const wait = o.baseDelayMs * 2 ** (attempts - 1);
      if (attempts >= o.maxAttempts || Date.now() - started + wait > o.deadlineMs) break;
      await new Promise((r) => setTimeout(r, wait).unref());
    }
    error = `${error ?? 'no answer'} (after ${attempts} attempts)`;
    return end('failed');
  }

  /** One POST; resolves with the answer's status. @throws RefusedAddress, or an Error for a network failure */
  #post(target: string, headers: Record<string, string>, body: string): Promise<number> {
    const url = new URL(target);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const kind = this.#o.allowPrivate ? undefined : privateAddressKind(host);
      if (kind) return Promise.reject(new RefusedAddress(`${host} is a ${kind} address, refused (SSRF)`));
    }
    const client = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = client.request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          timeout: this.#o.attemptTimeoutMs,
          lookup: this.#lookup(host),
          agent: false,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${this.#o.attemptTimeoutMs} ms`)));
      req.on('error', reject);
      req.end(body);
    });
  }

  /** A lookup that refuses a host when any address it resolves to is private (unless allowed). */
  #lookup(host: string): NonNullable<http.RequestOptions['lookup']> {
    const allowPrivate = this.#o.allowPrivate;
    return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      dnsLookup(hostname, { all: true }, (err, addresses: LookupAddress[]) => {
        if (err) return callback(err);
        const bad = allowPrivate
          ? undefined
          : addresses.map((a) => ({ a, kind: privateAddressKind(a.address) })).find((x) => x.kind);
        if (bad) {
          return callback(
            new RefusedAddress(`${host} resolves to ${bad.a.address}, a ${bad.kind} address, refused (SSRF)`),
          );
        }
        const first = addresses[0];
        if (!first) return callback(new Error(`${host} has no address`));
        if (options?.all) return callback(null, [first]);
        return callback(null, first.address, first.family);
      });
    }) as unknown as NonNullable<http.RequestOptions['lookup']>;
  }
}
