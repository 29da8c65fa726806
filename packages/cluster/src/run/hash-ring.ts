import { createHash } from 'node:crypto';
import { CrawlerError } from '@greenfinger/core';

/**
 * Consistent hashing for the crawl channel: a url goes to the node owning hash(catalogId|version|url), so the
 * same url found from two pages lands on the same node and collapses there. Virtual nodes spread the load;
 * adding or removing a node moves only the urls of that node's arcs.
 */
export class HashRing {
  readonly #replicas: number;
  #points: Array<{ hash: number; node: string }> = [];
  readonly #nodes = new Set<string>();

  /** @param replicas virtual nodes per member. @default 128 */
  constructor(nodes: Iterable<string> = [], replicas = 128) {
    if (!Number.isInteger(replicas) || replicas < 1)
      throw new TypeError(`replicas must be a whole number ≥ 1, got ${replicas}`);
    this.#replicas = replicas;
    for (const n of nodes) this.add(n);
  }

  get nodes(): string[] {
    return [...this.#nodes].sort();
  }

  add(node: string): void {
    if (this.#nodes.has(node)) return;
    this.#nodes.add(node);
    for (let i = 0; i < this.#replicas; i++) this.#points.push({ hash: hash32(`${node}#${i}`), node });
    this.#points.sort((a, b) => a.hash - b.hash || (a.node < b.node ? -1 : 1));
  }

  remove(node: string): void {
    if (!this.#nodes.delete(node)) return;
    this.#points = this.#points.filter((p) => p.node !== node);
  }

  /** The node owning a key; throws when the ring is empty. */
  owner(key: string): string {
    if (this.#points.length === 0) {
      throw new CrawlerError('CLUSTER', 'the hash ring has no nodes', {
        fix: 'add at least one node (HashRing.add) before asking which node owns a key',
      });
    }
    const h = hash32(key);
    let lo = 0;
    let hi = this.#points.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.#points[mid] as { hash: number }).hash < h) lo = mid + 1;
      else hi = mid;
    }
    return (this.#points[lo === this.#points.length ? 0 : lo] as { node: string }).node;
  }

  /** The routing key of a crawl task: deliberately not the referring page. */
  static crawlKey(catalogId: string, version: number, url: string): string {
    return `${catalogId}|${version}|${url}`;
  }
}

function hash32(s: string): number {
  return createHash('md5').update(s).digest().readUInt32BE(0);
}
