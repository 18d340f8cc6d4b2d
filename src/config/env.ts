import { z } from "zod";
import { engineOf } from "../db/database.js";
import { checkTogether, isLoopbackHost } from "./checks.js";
import { variables } from "./variables.js";

/** A check of several variables runs only when each of them is valid on its own (else its own problem says it). */
function whenValid(...names: string[]) {
  return { when: (payload: z.core.ParsePayload) => !payload.issues.some((issue) => names.includes(String(issue.path?.[0]))) };
}

/**
 * The environment: every variable on its own (./variables.ts), then together (here and ./checks.ts). One parse
 * reports every problem at once, each under its variable's name; src/config/deployment.ts reads the result into
 * the deployment's typed map.
 */
export const envSchema = variables
  // First, while the only problems are single variables': with one of them bad, its check alone speaks.
  .superRefine(checkTogether, { when: (payload) => payload.issues.length === 0 })
  .refine((c) => c.CODES_KEY !== undefined || engineOf(c.DATABASE_URL) === "sqlite", {
    ...whenValid("CODES_KEY", "DATABASE_URL"),
    path: ["CODES_KEY"],
    message: "is required with PostgreSQL, the same on every instance (make one with: openssl rand -base64 32)",
  })
  .refine((c) => c.METRICS_PORT === null || c.METRICS_TOKEN !== undefined || isLoopbackHost(c.METRICS_HOST), {
    ...whenValid("METRICS_PORT", "METRICS_TOKEN", "METRICS_HOST"),
    path: ["METRICS_TOKEN"],
    message: "is required when METRICS_HOST is beyond this machine (the metrics name routes and volumes): set one, or bind METRICS_HOST to 127.0.0.1",
  })
  .refine((c) => (c.CRYPTO_PAY_URL === undefined) === (c.CRYPTO_PAY_TOKEN === undefined), {
    ...whenValid("CRYPTO_PAY_URL", "CRYPTO_PAY_TOKEN"),
    path: ["CRYPTO_PAY_TOKEN"],
    message: "and CRYPTO_PAY_URL are set together (invoices need both) or not at all",
  })
  .refine((c) => c.TOPUP_MIN_USDT <= c.TOPUP_MAX_USDT, {
    ...whenValid("TOPUP_MIN_USDT", "TOPUP_MAX_USDT"),
    path: ["TOPUP_MIN_USDT"],
    message: "must be at most TOPUP_MAX_USDT",
  })
  .refine((c) => c.STARS_TOPUP_USDT_PER_STAR === undefined || c.STAR_COST_USDT === undefined || c.STARS_TOPUP_USDT_PER_STAR <= c.STAR_COST_USDT, {
    ...whenValid("STARS_TOPUP_USDT_PER_STAR", "STAR_COST_USDT"),
    path: ["STARS_TOPUP_USDT_PER_STAR"],
    message: "must be at most STAR_COST_USDT: a top-up would credit more USDT than its Stars cost you",
  })
  .refine((c) => c.RECONCILE_AFTER_MS > c.UPSTREAM_TIMEOUT_MS, {
    ...whenValid("RECONCILE_AFTER_MS", "UPSTREAM_TIMEOUT_MS"),
    path: ["RECONCILE_AFTER_MS"],
    message: "must be longer than UPSTREAM_TIMEOUT_MS, or a call still in flight could be settled under it",
  });
