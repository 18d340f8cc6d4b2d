import { describe, expect, it } from "vitest";
import { addressAllowed, isLoopbackName } from "../../src/core/webhooks/addresses.js";
import { checkEndpointUrl } from "../../src/core/webhooks/endpoints.js";

// Where webhooks may go: globally routable unicast only (the rules, without HTTP).

describe("webhook addresses", () => {
  it("allow globally routable unicast, IPv4 or IPv6, written either way", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8"]) {
      expect(addressAllowed(address, false), address).toBe(true);
    }
  });

  it("refuse every special-purpose range, the translated and embedded forms of private addresses among them", () => {
    for (const address of [
      "0.0.0.0",
      "10.0.0.1",
      "100.64.0.1",
      "169.254.169.254",
      "172.16.0.1",
      "192.0.0.8",
      "192.0.2.1",
      "192.88.99.1",
      "192.168.1.1",
      "198.18.0.1",
      "198.51.100.7",
      "203.0.113.9",
      "224.0.0.1",
      "240.0.0.1",
      "255.255.255.255",
      "::",
      "::a00:1", // IPv4-compatible (::/96)
      "::ffff:10.0.0.1", // IPv4-mapped
      "::ffff:0:a00:1", // SIIT (::ffff:0:0:0/96)
      "64:ff9b::a00:1", // NAT64
      "64:ff9b:1::a00:1", // local-use NAT64 (64:ff9b:1::/48)
      "2001::1", // Teredo
      "2001:db8::1",
      "2002:a00:1::1", // 6to4
      "fc00::1",
      "fe80::1",
      "fec0::1",
      "ff02::1",
      "not an address",
    ]) {
      expect(addressAllowed(address, false), address).toBe(false);
    }
  });

  it("allow loopback only when the deployment asks for it, and know this machine by name with or without the trailing dot", () => {
    for (const address of ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      expect(addressAllowed(address, false), address).toBe(false);
      expect(addressAllowed(address, true), address).toBe(true);
    }
    for (const name of ["localhost", "localhost.", "LOCALHOST", "app.localhost", "app.localhost."]) expect(isLoopbackName(name), name).toBe(true);
    expect(isLoopbackName("localhost.example.com")).toBe(false);
    for (const url of ["https://localhost./hook", "http://localhost.:9900/hook", "https://[::1]/hook", "https://127.0.0.1/hook"]) {
      expect(() => checkEndpointUrl(url, { allowLoopback: false }), url).toThrow(/url must/);
    }
    expect(checkEndpointUrl("http://localhost.:9900/hook", { allowLoopback: true })).toBe("http://localhost.:9900/hook");
  });
});
