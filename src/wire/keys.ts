import { z } from "zod";
import type { KeyInGrace } from "../core/model/account.js";
import { dateTime } from "./common.js";

// The account's API keys as a partner sees them (an addition to the contract): the live key's prefix and the
// replaced keys still answering during the grace period their rotation chose (decision 0033).

const keyInGraceView = z
  .object({
    key_prefix: z.string().describe("The replaced key's first characters, to tell it apart"),
    expires_at: dateTime.describe("When it stops answering (401 from then on); DELETE /v1/keys/previous ends it now"),
  })
  .meta({ id: "KeyInGrace" });

export const keysResponse = z.object({
  success: z.literal(true),
  key_prefix: z.string().nullable().describe("The live key's first characters"),
  previous_keys: z.array(keyInGraceView).describe("Replaced keys still answering, the soonest to end first; empty when none"),
});

export const toKeysView = (prefix: string | null, inGrace: KeyInGrace[]): z.infer<typeof keysResponse> => ({
  success: true,
  key_prefix: prefix,
  previous_keys: inGrace.map((key) => ({ key_prefix: key.displayPrefix, expires_at: key.expiresAt })),
});
