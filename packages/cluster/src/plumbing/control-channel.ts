import type { Logger } from '@greenfinger/core';
import type { Redis } from 'ioredis';
import type { ClusterKeys } from './keys.js';
import { parseObject, str } from './wire.js';

/** The control messages (seed 000: multicast including self, unbuffered, acted on first). */
export const CONTROL_TYPES = ['STARTED', 'STOP', 'PAUSE', 'PUBLISHED', 'COMPLETED', 'DELETED'] as const;
export type ControlType = (typeof CONTROL_TYPES)[number];

/**
 * One control message: its type, the run it is about, who sent it, and fields of its own (STARTED carries the
 * catalog row and the version, STOP the reason…). Unknown fields are kept; unknown types are dropped by `decode`.
 */
export interface ControlMessage {
  type: ControlType;
  runId: string;
  from: string;
  [field: string]: unknown;
}

/** A control message from its JSON; undefined for a type this version does not know, or a malformed one. */
export function decodeControl(text: string): ControlMessage | undefined {
  const o = parseObject(text);
  if (!o) return undefined;
  const type = str(o, 'type');
  const runId = str(o, 'runId');
  const from = str(o, 'from');
  if (!type || !(CONTROL_TYPES as readonly string[]).includes(type) || !runId || !from) return undefined;
  return { ...o, type: type as ControlType, runId, from };
}

/**
 * The control channel: Redis pub/sub on `gf:<cluster>:control`. Unbuffered on purpose: a stop takes effect now
 * instead of queueing behind the urls creating the traffic. A member that is not subscribed at that moment does not
 * get the message, so state a late joiner needs (the run in progress) is also kept in a key (`run:current`).
 */
export class ControlChannel {
  readonly #publisher: Redis;
  readonly #keys: ClusterKeys;
  readonly #log: Logger;

  constructor(publisher: Redis, keys: ClusterKeys, log: Logger) {
    this.#publisher = publisher;
    this.#keys = keys;
    this.#log = log.child({ component: 'control' });
  }

  /** Send to every subscribed member, this one included; returns how many received it. */
  async publish(message: ControlMessage): Promise<number> {
    return this.#publisher.publish(this.#keys.control, JSON.stringify(message));
  }

  /**
   * Subscribe `subscriber` (a connection of its own: a subscribed connection can do nothing else). A handler that
   * throws is logged; the others still get the message.
   */
  async subscribe(subscriber: Redis, handler: (message: ControlMessage) => void | Promise<void>): Promise<void> {
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.#keys.control) return;
      const message = decodeControl(text);
      if (!message) {
        this.#log.warn({ text: text.slice(0, 200) }, 'control message not understood; ignored');
        return;
      }
      Promise.resolve()
        .then(() => handler(message))
        .catch((err: unknown) => this.#log.error({ err, type: message.type }, 'control handler failed'));
    });
    await subscriber.subscribe(this.#keys.control);
  }
}
