import { describe, expect, it } from 'vitest';
import { clientAddress, clientAddressBehind, clientKey, trustedProxyList } from './client-key.ts';

describe('rate-limit keys', () => {
  it('keys IPv4 whole and IPv6 by /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:abcd:12:1:2:3:4')).toBe('2001:db8:abcd:12::/64');
    expect(clientKey('2001:db8:abcd:12::99')).toBe('2001:db8:abcd:12::/64');
    expect(clientKey('2001:0DB8:ABCD:0012::99')).toBe('2001:db8:abcd:12::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey(undefined)).toBe('unknown');
  });

  it.each([
    '::ffff:203.0.113.7',
    '::FFFF:203.0.113.7',
    '::ffff:cb00:7107',
    '::ffff:CB00:7107',
    '0:0:0:0:0:ffff:203.0.113.7',
    '0:0:0:0:0:ffff:cb00:7107',
    '0000:0000:0000:0000:0000:ffff:cb00:7107',
    '::0:ffff:cb00:7107',
    '0::ffff:203.0.113.7',
  ])('keys the IPv4-mapped spelling %s as its IPv4 address', (mapped) => {
    expect(clientKey(mapped)).toBe('203.0.113.7');
  });

  it('does not take IPv6 addresses that merely end in an IPv4 address for mapped ones', () => {
    expect(clientKey('64:ff9b::203.0.113.7')).toBe('64:ff9b:0:0::/64');
    expect(clientKey('::ffff:0:203.0.113.7')).toBe('0:0:0:0::/64');
  });

  it('uses X-Forwarded-For only as far as the trusted hops reach', () => {
    expect(clientAddress('10.0.0.1', '198.51.100.1', 0)).toBe('10.0.0.1');
    expect(clientAddress('10.0.0.1', 'forged, 198.51.100.1', 1)).toBe('198.51.100.1');
    expect(clientAddress('10.0.0.2', '198.51.100.1, 10.0.0.1', 2)).toBe('198.51.100.1');
    expect(clientAddress('10.0.0.1', undefined, 1)).toBe('10.0.0.1');
    // Too short for two hops: the one entry was written by the client (or the first proxy got no header at all).
    expect(clientAddress('10.0.0.2', '198.51.100.1', 2)).toBe('10.0.0.2');
  });

  it.each([
    ['198.51.100.1:5678', '198.51.100.1'],
    ['[2001:db8::1]:443', '2001:db8::1'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['::ffff:198.51.100.1', '::ffff:198.51.100.1'],
    ['unknown', '10.0.0.1'],
    ['_hidden', '10.0.0.1'],
    ['198.51.100.1:', '10.0.0.1'],
    ['2001:db8::1:443', '2001:db8::1:443'],
    ['[198.51.100.1]:80', '198.51.100.1'],
    ['198.51.100.999', '10.0.0.1'],
  ])('reads the forwarded entry %s as %s', (entry, address) => {
    const trusted = trustedProxyList(['10.0.0.0/8']);

    expect(clientAddress('10.0.0.1', `forged, ${entry}`, 1)).toBe(address);
    expect(clientAddressBehind('10.0.0.1', `forged, ${entry}`, trusted)).toBe(address);
  });

  it('uses X-Forwarded-For only when the peer is a trusted proxy, skipping the trusted entries from the right', () => {
    const trusted = trustedProxyList(['10.0.0.0/8', '2001:db8::/32']);

    // A client reaching the server directly cannot choose its key.
    expect(clientAddressBehind('203.0.113.5', '198.51.100.1', trusted)).toBe('203.0.113.5');
    expect(clientAddressBehind('10.0.0.1', 'forged, 198.51.100.1', trusted)).toBe('198.51.100.1');
    expect(clientAddressBehind('::ffff:10.0.0.2', '198.51.100.1, 10.0.0.1', trusted)).toBe('198.51.100.1');
    expect(clientAddressBehind('0:0:0:0:0:ffff:a00:2', '198.51.100.1, 10.0.0.1:8080', trusted)).toBe('198.51.100.1');
    expect(clientAddressBehind('2001:db8::1', '198.51.100.7', trusted)).toBe('198.51.100.7');
    expect(clientAddressBehind('10.0.0.1', undefined, trusted)).toBe('10.0.0.1');
    // A trusted proxy that could not tell who its peer was: that peer is not every such visitor at once.
    expect(clientAddressBehind('10.0.0.1', 'unknown, 10.0.0.3', trusted)).toBe('10.0.0.1');
  });
});
