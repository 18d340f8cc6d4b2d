import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import proxyAddr from "@fastify/proxy-addr";

type Trust = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY as Fastify's trustProxy: whether the address at `hop` (0: the socket's) is a proxy to believe about
 * the next. A list (addresses, CIDRs, presets) is read by proxy-addr, as Fastify reads a string; a hop count trusts
 * the first `hops` hops, whatever their address. One function for Fastify and for the warning below, so both judge
 * a proxy alike.
 */
export function proxyTrust(setting: string | number): Trust {
  if (typeof setting === "number") return (_address, hop) => hop < setting;
  return proxyAddr.compile(setting.split(",").map((entry) => entry.trim()));
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
