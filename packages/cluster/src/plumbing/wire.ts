import type { FrontierEntry } from '@greenfinger/core';

/*
 * The format between nodes (seed 000, "Why JSON on the wire"): JSON objects with short field names, read by picking
 * the fields this version knows, so a newer node's extra fields are ignored rather than breaking an older one
 * during a rolling upgrade. Bytes (pictures, pages) never travel inside JSON.
 */

/** Parse a JSON object; undefined for anything else (not JSON, an array, a scalar). */
export function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function str(o: Record<string, unknown>, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
}

export function num(o: Record<string, unknown>, key: string): number | undefined {
  const v = o[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** The origin of an absolute url (`http://host:port`), or undefined. */
function originOf(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]+/i.exec(url);
  return m?.[0];
}

/**
 * A crawl task: one url for its owner's frontier. `u` url, `d` depth, `r` referrer — its path alone when it has the
 * url's origin (about 20 bytes less per url in flight), `p` priority, `x`/`c` redirects, `h` how often it was
 * forwarded to a new owner.
 */
export function encodeTask(entry: FrontierEntry, hops = 0): string {
  const o: Record<string, unknown> = { u: entry.url, d: entry.depth };
  if (entry.referrer !== undefined) {
    const origin = originOf(entry.url);
    o.r = origin && entry.referrer.startsWith(`${origin}/`) ? entry.referrer.slice(origin.length) : entry.referrer;
  }
  if (entry.priority) o.p = entry.priority;
  if (entry.redirects) o.x = entry.redirects;
  if (entry.redirectChain && entry.redirectChain.length > 0) o.c = entry.redirectChain;
  if (entry.foundAs !== undefined) o.f = entry.foundAs;
  if (hops > 0) o.h = hops;
  return JSON.stringify(o);
}

/** The task in a stream entry; undefined when it carries no url and depth (it is settled and dropped). */
export function decodeTask(text: string): FrontierEntry | undefined {
  const o = parseObject(text);
  if (!o) return undefined;
  const url = str(o, 'u');
  const depth = num(o, 'd');
  if (!url || depth === undefined) return undefined;
  const entry: FrontierEntry = { url, depth };
  const referrer = str(o, 'r');
  if (referrer !== undefined) {
    const origin = originOf(url);
    entry.referrer = referrer.startsWith('/') && !referrer.startsWith('//') && origin ? origin + referrer : referrer;
  }
  const priority = num(o, 'p');
  if (priority !== undefined) entry.priority = priority;
  const redirects = num(o, 'x');
  if (redirects !== undefined) entry.redirects = redirects;
  const chain = o.c;
  if (Array.isArray(chain) && chain.every((c) => typeof c === 'string')) entry.redirectChain = chain as string[];
  const foundAs = str(o, 'f');
  if (foundAs !== undefined) entry.foundAs = foundAs;
  return entry;
}
