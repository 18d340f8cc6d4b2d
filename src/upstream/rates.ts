import { z } from "zod";
import { type RatesPort, UpstreamError } from "../core/ports.js";
import type { HttpClient } from "./http.js";

const tonSchema = z.object({ ton_usd: z.number().positive() });

/** The exchange-rate source over HTTP. */
export function createRatesAdapter(http: HttpClient | null): RatesPort {
  return {
    configured: http !== null,
    ready: async () => (http ? http.ready("/rates/health") : false),
    async tonUsd(): Promise<number> {
      if (!http) throw new UpstreamError("rates source not configured");
      try {
        const response = await http.call("GET", "/rates/ton");
        if (response.status !== 200) throw new UpstreamError(`HTTP ${response.status}`);
        return http.parse(tonSchema, response).ton_usd;
      } catch (error) {
        if (error instanceof UpstreamError) throw error;
        throw new UpstreamError((error as Error).message, error);
      }
    },
  };
}
