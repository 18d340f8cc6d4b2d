import { z } from "zod";
import type { RatesPort } from "../core/ports.js";
import type { HttpClient } from "./http.js";
import { missing, notConfigured, readAlways } from "./provider.js";

// What this adapter accepts: the rates' part of docs/provider-protocol.openapi.json.
export const tonSchema = z.object({ ton_usd: z.number().positive().describe("USD per TON") });

/** The exchange-rate source over HTTP. */
export function createRatesAdapter(http: HttpClient | null): RatesPort {
  if (!http) return { ...notConfigured, tonUsd: missing };
  return {
    configured: true,
    ready: () => http.ready("/rates/health"),
    tonUsd: async () => (await readAlways(http, "/rates/ton", tonSchema)).ton_usd,
  };
}
