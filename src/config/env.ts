import { engineOf } from "../db/database.js";
import { checkTogether, isLoopbackHost } from "./checks.js";
import { variables } from "./variables.js";

/**
 * The environment: every variable on its own (./variables.ts), then together (here and ./checks.ts). One parse
 * reports every problem at once, each under its variable's name; src/config/deployment.ts reads the result into
 * the deployment's typed map.
 */
export const envSchema = variables
  .refine((c) => c.CODES_KEY !== undefined || engineOf(c.DATABASE_URL) === "sqlite", {
    path: ["CODES_KEY"],
    message: "is required with PostgreSQL, the same on every instance (make one with: openssl rand -base64 32)",
  })
  .refine((c) => c.METRICS_PORT === null || c.METRICS_TOKEN !== undefined || isLoopbackHost(c.METRICS_HOST), {
    path: ["METRICS_TOKEN"],
    message: "is required when METRICS_HOST is beyond this machine (the metrics name routes and volumes): set one, or bind METRICS_HOST to 127.0.0.1",
  })
  .refine((c) => (c.CRYPTO_PAY_URL === undefined) === (c.CRYPTO_PAY_TOKEN === undefined), {
    path: ["CRYPTO_PAY_TOKEN"],
    message: "and CRYPTO_PAY_URL are set together (invoices need both) or not at all",
  })
  .superRefine(checkTogether)
  .refine((c) => c.TOPUP_MIN_USDT <= c.TOPUP_MAX_USDT, { path: ["TOPUP_MIN_USDT"], message: "must be at most TOPUP_MAX_USDT" })
  .refine((c) => c.STARS_TOPUP_USDT_PER_STAR === undefined || c.STAR_COST_USDT === undefined || c.STARS_TOPUP_USDT_PER_STAR <= c.STAR_COST_USDT, {
    path: ["STARS_TOPUP_USDT_PER_STAR"],
    message: "must be at most STAR_COST_USDT: a top-up would credit more USDT than its Stars cost you",
  })
  .refine((c) => c.RECONCILE_AFTER_MS > c.UPSTREAM_TIMEOUT_MS, {
    path: ["RECONCILE_AFTER_MS"],
    message: "must be longer than UPSTREAM_TIMEOUT_MS, or a call still in flight could be settled under it",
  });
