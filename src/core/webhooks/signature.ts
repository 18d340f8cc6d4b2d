import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Stripe-style signatures: `X-Webhook-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each v1 the HMAC-SHA256
 * of `<t>.<raw body>` under one live secret (two during a rotation's overlap). The receiver recomputes it over
 * the raw bytes it got, and refuses a `t` outside its tolerance, so a captured delivery cannot be replayed later.
 */
export const SIGNATURE_HEADER = "x-webhook-signature";
const DEFAULT_TOLERANCE_SECONDS = 300;

export const newSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

const sign = (secret: string, timestamp: number, body: string) => createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");

export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${sign(secret, timestamp, body)}`)].join(",");
}

/** The receiver's check (docs/api-guide.md shows the same in a few lines): true when one v1 matches within the tolerance. */
export function verifySignature(
  header: string,
  body: string,
  secret: string,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  nowMs = Date.now(),
): boolean {
  const parts = header.split(",").map((part) => part.trim().split("="));
  const timestamp = Number(parts.find(([name]) => name === "t")?.[1]);
  if (!Number.isInteger(timestamp) || Math.abs(nowMs / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, timestamp, body), "hex");
  return parts
    .filter(([name, value]) => name === "v1" && /^[0-9a-f]{64}$/.test(value ?? ""))
    .some(([, value]) => timingSafeEqual(Buffer.from(value, "hex"), expected));
}
