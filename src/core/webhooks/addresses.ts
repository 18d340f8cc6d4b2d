import { BlockList, isIP } from "node:net";

/**
 * Where a webhook may be delivered: public addresses only, so a partner cannot point the service at its own
 * network (SSRF). Loopback is allowed only where the deployment says so (development with the simulator).
 */
const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");

const internal = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 3],
] as const) {
  internal.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 127],
  // NAT64 and 6to4 carry IPv4 addresses (a private one among them); site-local is the old private range.
  ["64:ff9b::", 96],
  ["2002::", 16],
  ["fec0::", 10],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  internal.addSubnet(network, prefix, "ipv6");
}

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is judged as the IPv4 address it is. */
const plain = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, "$1");

export function isLoopbackAddress(address: string): boolean {
  const ip = plain(address);
  const family = isIP(ip);
  return family !== 0 && loopback.check(ip, family === 4 ? "ipv4" : "ipv6");
}

/** True when a resolved address may receive webhooks. */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  const ip = plain(address);
  const family = isIP(ip);
  if (family === 0) return false;
  if (isLoopbackAddress(ip)) return allowLoopback;
  return !internal.check(ip, family === 4 ? "ipv4" : "ipv6");
}

/** A host name that always means this machine. */
export const isLoopbackName = (host: string) => host === "localhost" || host.endsWith(".localhost");
