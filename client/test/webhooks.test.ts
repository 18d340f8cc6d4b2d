import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { verifyWebhook } from "../src/index.js";

const secret = "whsec_test";
const body = JSON.stringify({ id: "evt_1", type: "ping", created_at: "2026-11-29T00:00:00.000Z", data: {} });
const signed = (t: number) => ({ "x-webhook-signature": `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}` });

describe("verifyWebhook", () => {
  it("accepts a fresh delivery", () => {
    const now = Date.now();
    expect(verifyWebhook(body, signed(Math.floor(now / 1000)), secret, { nowMs: now }).id).toBe("evt_1");
  });

  it("refuses a tolerance that is not a finite positive number (NaN would accept a delivery of any age)", () => {
    const now = Date.now();
    const old = signed(Math.floor(now / 1000) - 86_400 * 365);
    for (const toleranceSeconds of [Number.NaN, Number.POSITIVE_INFINITY, 0, -5])
      expect(() => verifyWebhook(body, old, secret, { nowMs: now, toleranceSeconds }), String(toleranceSeconds)).toThrow(TypeError);
  });
});
