import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = "v1";
const KEY_BYTES = 32;

/**
 * Seals gift card codes with AES-256-GCM before they are stored, so a copy of the database alone does
 * not give them away. The key comes from configuration or a file beside the database (see service.ts).
 */
export function createVault(key: Buffer) {
  if (key.length !== KEY_BYTES) throw new Error(`the codes key must be ${KEY_BYTES} bytes`);
  return {
    seal(codes: string[]): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(JSON.stringify(codes), "utf8"), cipher.final()]);
      return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
    },
    open(sealed: string): string[] {
      const [version, payload] = sealed.split(":");
      if (version !== VERSION || !payload) throw new Error("unknown sealed format");
      const raw = Buffer.from(payload, "base64");
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8")) as string[];
    },
  };
}

export type Vault = ReturnType<typeof createVault>;

export const newVaultKey = () => randomBytes(KEY_BYTES);
