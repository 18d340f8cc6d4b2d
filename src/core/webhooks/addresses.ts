import ipaddr from "ipaddr.js";

/**
 * Where a webhook may be delivered: globally routable unicast only, so a partner cannot point the service at its
 * own network, a cloud metadata address or a translated one (SSRF). ipaddr.js names the special-purpose ranges
 * (private, reserved, link-local, carrier-grade NAT, NAT64, 6to4, Teredo, …); IPv6 must also lie in the global
 * unicast space 2000::/3, which leaves out the IPv4-compatible ::/96 and the local-use NAT64 64:ff9b:1::/48.
 * Loopback is allowed only where the deployment asks for it (WEBHOOK_ALLOW_LOOPBACK: the chat and the tests).
 */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");

/** The address as it is judged: an IPv4 address written as IPv6 (`::ffff:10.0.0.1`) is the IPv4 address it is. */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  return ipaddr.isValid(address) ? ipaddr.process(address) : null;
}

/** True when a resolved address may receive webhooks. */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  const ip = parsed(address);
  if (!ip) return false;
  if (ip.range() === "loopback") return allowLoopback;
  if (ip.range() !== "unicast") return false;
  return ip.kind() === "ipv4" || ip.match(GLOBAL_UNICAST_V6);
}

/** A host name that always means this machine (with or without the root's trailing dot). */
export function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}
