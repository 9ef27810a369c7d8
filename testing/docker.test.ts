import { describe, expect, it } from 'vitest';
import { gatewayOf } from './docker.ts';

describe("Docker's bridge address", () => {
  it('is the gateway Docker names, or else the first address of its subnet (a fresh machine: no gateway named)', () => {
    expect(gatewayOf({ Subnet: '172.17.0.0/16', Gateway: '172.17.0.1' })).toBe('172.17.0.1');
    expect(gatewayOf({ Subnet: '172.17.0.0/16' })).toBe('172.17.0.1');
    expect(gatewayOf({ Subnet: '10.200.3.0/24' })).toBe('10.200.3.1');
    expect(() => gatewayOf({ Subnet: 'fd00::/64' })).toThrow(/no IPv4 subnet/);
  });
});
