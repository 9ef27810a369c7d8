import { BlockList, isIP } from 'node:net';

/** The eight 16-bit groups of a valid IPv6 address, whatever its spelling (`::`, leading zeros, a dotted tail). */
function ipv6Groups(address: string): number[] {
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  const hex = dotted
    ? `${address.slice(0, dotted.index)}${((+dotted[1] << 8) | +dotted[2]).toString(16)}:${((+dotted[3] << 8) | +dotted[4]).toString(16)}`
    : address;
  const [head, tail] = hex.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups].map((group) => Number.parseInt(group, 16));
}

/**
 * An IP address in one spelling per host: the zone is dropped, and an IPv4-mapped IPv6 address (`::ffff:1.2.3.4`,
 * `::ffff:0102:0304`, `0:0:0:0:0:ffff:1.2.3.4`, …) is its IPv4 address, since a dual-stack socket reports IPv4
 * peers that way and a client could otherwise pick a spelling per request. Anything that is not an IP address (as
 * `net.isIP` judges) is `undefined`.
 */
function normalizedAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const unzoned = address.split('%')[0];
  const family = isIP(unzoned);
  if (family === 4) return { address: unzoned, family: 'ipv4' };
  if (family !== 6) return undefined;
  const groups = ipv6Groups(unzoned);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return { address: [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.'), family: 'ipv4' };
  }
  return { address: groups.map((group) => group.toString(16)).join(':'), family: 'ipv6' };
}

/**
 * An address as a proxy wrote it in `X-Forwarded-For`, without the port or brackets some proxies add
 * (`1.2.3.4:5678`, `[2001:db8::1]:443`). `undefined` when it is no IP address (`unknown`, a name, garbage).
 */
function forwardedAddress(entry: string): string | undefined {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  const ipv4WithPort = /^([\d.]+):\d+$/.exec(entry);
  const address = bracketed?.[1] ?? ipv4WithPort?.[1] ?? entry;
  return normalizedAddress(address) ? address : undefined;
}

/**
 * The rate-limit key for a client address. IPv4 addresses (including IPv4-mapped IPv6 ones, in any spelling) are
 * used whole; IPv6 addresses are cut to their /64 network, because one household or host usually holds a whole /64
 * and could otherwise take a fresh address, and a fresh quota, for every request.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const normalized = normalizedAddress(address);
  if (!normalized) return address;
  if (normalized.family === 'ipv4') return normalized.address;
  return `${normalized.address.split(':').slice(0, 4).join(':')}::/64`;
}

function forwardedEntries(forwardedFor: string): string[] {
  return forwardedFor
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/**
 * The address to rate-limit by. Without trusted proxies it is the socket's peer, which a client cannot forge. Behind
 * `trustedHops` reverse proxies that each append the address they saw to `X-Forwarded-For`, it is the entry the
 * outermost trusted proxy appended; entries to the left of it were written by the client and are ignored. A header
 * too short to hold that entry, or an entry that is no IP address, means the socket's peer: anything else would be
 * an address the client chose, or one key shared by every such client.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedHops: number,
): string | undefined {
  if (trustedHops <= 0 || !forwardedFor) return socketAddress;
  const hops = forwardedEntries(forwardedFor);
  const entry = hops[hops.length - trustedHops];
  return (entry !== undefined && forwardedAddress(entry)) || socketAddress;
}

/** A CIDR prefix as an operator writes it: 1 to 3 decimal digits, nothing else (`1e1`, `0x8`, `8.0` are refused). */
const PREFIX = /^\d{1,3}$/;

/**
 * The proxies in front of the server, by address: `TRUST_PROXY=10.0.0.0/8 192.0.2.7`. Throws, naming the entry, on
 * one that is neither an IP address nor a CIDR range with a prefix from 1 to the family's width: `/0`, or an empty
 * prefix, would trust every address on the internet to say who it is.
 */
export function trustedProxyList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = address.includes('%') ? 0 : isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    const prefix = bits !== undefined && PREFIX.test(bits) ? Number(bits) : undefined;
    if (family === 0 || extra !== undefined || (bits !== undefined && !(prefix && prefix <= maxBits))) {
      throw new Error(
        `"${entry}" is neither an IP address nor a CIDR range with a prefix from 1 to ${family === 6 ? 128 : 32}, such as 10.0.0.0/8`,
      );
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const normalized = normalizedAddress(address);
  return normalized !== undefined && list.check(normalized.address, normalized.family);
}

/**
 * The address to rate-limit by when the trusted proxies are known by address. The forwarded addresses count only if
 * the socket's peer is a trusted proxy; then `X-Forwarded-For` is read from the right, skipping the trusted proxies'
 * own entries, and the first address no trusted proxy owns is the client. A client that reaches the server directly
 * is keyed by its socket address, whatever it writes in the header; so is one whose entry is no IP address.
 */
export function clientAddressBehind(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trusted: BlockList,
): string | undefined {
  if (!socketAddress || !forwardedFor || !isTrusted(trusted, socketAddress)) return socketAddress;
  const hops = forwardedEntries(forwardedFor);
  let client = socketAddress;
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const address = forwardedAddress(hops[index]);
    if (!address) return socketAddress;
    client = address;
    if (!isTrusted(trusted, client)) break;
  }
  return client;
}
