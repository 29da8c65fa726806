import { BlockList, isIP } from 'node:net';

/**
 * The addresses a webhook is never sent to unless GF_WEBHOOK_ALLOW_PRIVATE=true (SSRF): this host, its network and
 * the cloud metadata address — loopback, link-local, private ranges and the unspecified address.
 */
const PRIVATE: ReadonlyArray<[string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['fc00::', 7, 'ipv6', 'private (unique local)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
];

const lists = PRIVATE.map(([net, prefix, type, what]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { list, type, what, range: `${net}/${prefix}` };
});

/**
 * What kind of address this is when a webhook may not go there (`loopback (127.0.0.0/8)`), else undefined. An
 * IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is judged as the IPv4 address it carries.
 */
export function privateAddressKind(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)?.[1];
  const ip = mapped ?? bare;
  const family = isIP(ip);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const l of lists) if (l.type === type && l.list.check(ip, type)) return `${l.what} (${l.range})`;
  return undefined;
}

/**
 * What is wrong with a webhook url as a user gives it, in one line; undefined when it is fine. It must be an absolute
 * http or https url without credentials; a host written as an address may not be a private one unless
 * `allowPrivate` (a host name is judged by the addresses it resolves to when the webhook is sent).
 */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `"${text}" is not a url: give an absolute http or https url such as https://example.com/hooks/greenfinger`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `"${text}" is ${url.protocol.replace(/:$/, '')}: a webhook is an http or https url`;
  }
  if (url.username || url.password) {
    return `"${text}" carries credentials: drop them, the receiver checks X-Greenfinger-Signature instead`;
  }
  const kind = allowPrivate ? undefined : privateAddressKind(url.hostname);
  if (kind) {
    return `"${text}" is a ${kind} address, refused (SSRF): use a public address, or set GF_WEBHOOK_ALLOW_PRIVATE=true on a trusted network`;
  }
  return undefined;
}
