import { isIPv6 } from 'node:net';

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
