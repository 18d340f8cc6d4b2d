import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import ipaddr from "ipaddr.js";

type Trust = (address: string, hop: number) => boolean;
type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** TRUST_PROXY's presets, as proxy-addr (Fastify's own reading of a string) has them. */
const PRESETS: Record<string, string[]> = {
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  loopback: ["127.0.0.1/8", "::1/128"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

function rangeOf(entry: string): Range {
  const [ip, bits] = entry.includes("/") ? ipaddr.parseCIDR(entry) : ([ipaddr.parse(entry), -1] as const);
  const full = ip.kind() === "ipv4" ? 32 : 128;
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [(ip as ipaddr.IPv6).toIPv4Address(), bits < 0 ? 32 : Math.max(0, bits - 96)];
  }
  return [ip, bits < 0 ? full : bits];
}

function within(address: string, [range, bits]: Range): boolean {
  if (!ipaddr.isValid(address)) return false;
  let ip = ipaddr.parse(address);
  if (ip.kind() !== range.kind()) {
    if (range.kind() === "ipv6") ip = (ip as ipaddr.IPv4).toIPv4MappedAddress();
    else if ((ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
    else return false;
  }
  return ip.match(range as never, bits);
}

/**
 * TRUST_PROXY as Fastify's trustProxy: whether the address at `hop` (0: the socket's) is a proxy to believe about
 * the next. One function for Fastify and for the warning below, so both judge a proxy alike. A hop count trusts
 * the first `hops` hops, whatever their address (as Fastify's number did).
 */
export function proxyTrust(setting: string | number): Trust {
  if (typeof setting === "number") return (_address, hop) => hop < setting;
  const ranges = setting
    .split(",")
    .map((entry) => entry.trim())
    .flatMap((entry) => PRESETS[entry] ?? [entry])
    .map(rangeOf);
  return (address) => ranges.some((range) => within(address, range));
}

const onThisMachine = proxyTrust("loopback");

/** Distinct proxies warned about in one start, at most: a client forging the header cannot flood the log. */
const WARNINGS_MAX = 5;

/**
 * Warns when a request arrives through a proxy TRUST_PROXY does not name (a forwarding header from a socket
 * address not trusted): every request through it then counts and is logged as the proxy's address, so one
 * client's excess (the rate limits, the Crypto Pay webhook's bound on forgeries) holds back all of them. Once
 * for each such address, at most WARNINGS_MAX a start, never per request.
 */
const untrustedProxyPlugin: FastifyPluginCallback<{ trust: Trust | null }> = (app, { trust }, done) => {
  const warned = new Set<string>();
  app.addHook("onRequest", (request, _reply, next) => {
    if (warned.size < WARNINGS_MAX) {
      const { headers } = request;
      const header = headers["x-forwarded-for"] !== undefined ? "x-forwarded-for" : headers.forwarded !== undefined ? "forwarded" : null;
      const proxy = request.socket.remoteAddress;
      if (header && proxy && !warned.has(proxy) && !trust?.(proxy, 0)) {
        warned.add(proxy);
        const setting = onThisMachine(proxy, 0) ? "loopback" : proxy;
        request.log.warn(
          { proxy, header, variable: "TRUST_PROXY" },
          `a request came through ${proxy} (${header}), which TRUST_PROXY does not name: each is counted and logged as ${proxy}, not its client; if that is your proxy, set TRUST_PROXY=${setting}`,
        );
      }
    }
    next();
  });
  done();
};

export const untrustedProxy = fp(untrustedProxyPlugin, { name: "untrusted-proxy", fastify: "5.x" });
