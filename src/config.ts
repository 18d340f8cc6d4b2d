import { existsSync } from "node:fs";
import { type Config, deploymentOf } from "./config/deployment.js";
import { envSchema } from "./config/env.js";
import { readConfigForChecks } from "./config/for-checks.js";

export type { BotApi, BotSettings, ProductName } from "./config/deployment.js";
export { providerUrl } from "./config/variables.js";
export type { Config };
export type { ConfigProblem } from "./config/for-checks.js";

/** The environment's variables read into the deployment's typed map (src/config/deployment.ts). */
export const configSchema = envSchema.transform(deploymentOf);

/** Loads `.env` from the working directory into process.env when present (real variables win). */
export function loadDotEnv(path = ".env"): void {
  if (existsSync(path)) process.loadEnvFile(path);
}

/** Parses the environment once; throws one error naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const result = configSchema.safeParse(present);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}

/** For preflight: every problem of the environment and the deployment as far as it reads (src/config/for-checks.ts). */
export const loadConfigForChecks = (env: Record<string, string | undefined>) => readConfigForChecks(configSchema, env);
