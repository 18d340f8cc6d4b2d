import { createHmac, randomBytes } from "node:crypto";

/**
 * Stripe-style signatures: `X-Webhook-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, each v1 the HMAC-SHA256
 * of `<t>.<raw body>` under one live secret (two during a rotation's overlap). The receiver recomputes it over
 * the raw bytes it got, and refuses a `t` outside its tolerance, so a captured delivery cannot be replayed later.
 */
export const SIGNATURE_HEADER = "x-webhook-signature";

export const newSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

const sign = (secret: string, timestamp: number, body: string) => createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");

export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return [`t=${timestamp}`, ...secrets.map((secret) => `v1=${sign(secret, timestamp, body)}`)].join(",");
}
