import { BlockList, isIPv4, isIPv6 } from 'node:net';

function expandIPv6(address: string): string[] {
  const [head, tail = ''] = address.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = address.includes('::') ? 8 - headGroups.length - tailGroups.length : 0;
  return [...headGroups, ...Array<string>(missing).fill('0'), ...tailGroups];
}

/**
 * The rate-limit key for a client address. IPv4 addresses (including IPv4-mapped IPv6 ones) are used whole; IPv6
 * addresses are cut to their /64 network, because one household or host usually holds a whole /64 and could
 * otherwise take a fresh address, and a fresh quota, for every request.
 */
export function clientKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const unzoned = address.split('%')[0];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(unzoned);
  if (mapped) return mapped[1];
  if (!isIPv6(unzoned)) return unzoned;
  const groups = expandIPv6(unzoned.toLowerCase()).slice(0, 4);
  return `${groups.map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/**
 * The address to rate-limit by. Without trusted proxies it is the socket's peer, which a client cannot forge. Behind
 * `trustedHops` reverse proxies that each append the address they saw to `X-Forwarded-For`, it is the entry the
 * outermost trusted proxy appended; entries to the left of it were written by the client and are ignored.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedHops: number,
): string | undefined {
  if (trustedHops <= 0 || !forwardedFor) return socketAddress;
  const hops = forwardedFor
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return hops[hops.length - trustedHops] ?? hops[0] ?? socketAddress;
}

/**
 * The proxies in front of the server, by address: `TRUST_PROXY=10.0.0.0/8 192.0.2.7`. Throws on an entry that is
 * neither an IP address nor a CIDR range.
 */
export function trustedProxyList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = isIPv6(address) ? 'ipv6' : isIPv4(address) ? 'ipv4' : undefined;
    const prefix = bits === undefined ? undefined : Number(bits);
    const maxBits = family === 'ipv6' ? 128 : 32;
    if (
      !family ||
      extra !== undefined ||
      (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= maxBits))
    ) {
      throw new Error(`"${entry}" is neither an IP address nor a CIDR range such as 10.0.0.0/8`);
    }
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, prefix, family);
  }
  return list;
}

function isTrusted(list: BlockList, address: string): boolean {
  const unzoned = address.split('%')[0];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(unzoned);
  if (mapped) return list.check(mapped[1], 'ipv4');
  if (isIPv4(unzoned)) return list.check(unzoned, 'ipv4');
  return isIPv6(unzoned) && list.check(unzoned, 'ipv6');
}

/**
 * The address to rate-limit by when the trusted proxies are known by address. The forwarded addresses count only if
 * the socket's peer is a trusted proxy; then `X-Forwarded-For` is read from the right, skipping the trusted proxies'
 * own entries, and the first address no trusted proxy owns is the client. A client that reaches the server directly
 * is keyed by its socket address, whatever it writes in the header.
 */
export function clientAddressBehind(
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trusted: BlockList,
): string | undefined {
  if (!socketAddress || !forwardedFor || !isTrusted(trusted, socketAddress)) return socketAddress;
  const hops = forwardedFor
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  let client = socketAddress;
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    client = hops[index];
    if (!isTrusted(trusted, client)) break;
  }
  return client;
}
