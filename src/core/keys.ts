import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const KEY_PREFIX = "sj_";
const KEY_BYTES = 32;
/** Characters of the key (after sj_) kept for display: 48 of 256 random bits, enough to tell keys apart. */
const DISPLAY_CHARS = 8;
const KEY_PATTERN = /^sj_[A-Za-z0-9_-]{43}$/;

export interface NewKey {
  key: string;
  hash: string;
  displayPrefix: string;
}

/** `sj_` + 32 random bytes in base64url. 256 random bits need no slow hash: SHA-256 is the lookup. */
export function generateKey(): NewKey {
  const key = KEY_PREFIX + randomBytes(KEY_BYTES).toString("base64url");
  return { key, hash: hashKey(key), displayPrefix: key.slice(0, KEY_PREFIX.length + DISPLAY_CHARS) };
}

export function hashKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export function looksLikeKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
