import { BlockList, isIP } from 'node:net';

/**
 * Addresses web_fetch never connects to: this machine, private networks, link-local (and so the
 * cloud metadata services at 169.254.169.254 and fd00:ec2::254), shared CGNAT space, multicast,
 * reserved and documentation ranges, and IPv6 forms that carry an IPv4 address inside
 * (mapped, compatible, NAT64, 6to4, Teredo) since those could lead to any of the above.
 */
// Two lists: one BlockList would judge IPv4 addresses by IPv6 rules too (8.8.8.8 as ::8.8.8.8).
const forbidden4 = new BlockList();
const forbidden6 = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  forbidden4.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 96], // unspecified, loopback (::1) and IPv4-compatible
  ['::ffff:0:0', 96], // IPv4-mapped
  ['64:ff9b::', 96], // NAT64
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local (fd00:ec2::254 among them)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local
  ['ff00::', 8], // multicast
] as const)
  forbidden6.addSubnet(net, bits, 'ipv6');

/** True when `ip` (IPv4 or IPv6, no brackets) must not be connected to; not an IP: true. */
export function isForbiddenAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return true;
  // An IPv4 address written inside IPv6 (::ffff:127.0.0.1) falls in ::ffff:0:0/96.
  if (family === 6) return forbidden6.check(ip, 'ipv6');
  return forbidden4.check(ip, 'ipv4');
}
