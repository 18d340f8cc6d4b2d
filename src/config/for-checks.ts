import type { z } from "zod";
import { type Config, deploymentOf, type ProductName } from "./deployment.js";
import type { envSchema } from "./env.js";
import { variables } from "./variables.js";

/** One problem of the environment: the variable it is about and what is wrong with it. */
export interface ConfigProblem {
  variable: string;
  message: string;
}

/** Rounds of setting bad variables aside: each round can only reveal the checks across the variables left. */
const ROUNDS = 10;

/**
 * For preflight only (the service never starts on it): every problem of the environment, each naming its variable,
 * and the deployment as far as it reads without them, so that what the other variables set up can still be checked.
 * A variable with a problem is set aside (its default, or unset). `unchecked`: products whose chosen backend lacks
 * what it needs (BOT_TOKEN for `telegram`, Reloadly's credentials): their backend is not opened.
 */
export function readConfigForChecks(
  schema: z.ZodType<Config>,
  env: Record<string, string | undefined>,
): { config: Config; problems: ConfigProblem[]; unchecked: Partial<Record<ProductName, string>> } {
  const left: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== "") left[name] = value;
  const problems: ConfigProblem[] = [];
  /** Records each issue under its variable and sets that variable aside; false when none was left to set aside. */
  const setAside = (issues: z.core.$ZodIssue[]) => {
    let any = false;
    for (const issue of issues) {
      const variable = issue.path.length ? String(issue.path[0]) : "configuration";
      if (!problems.some((p) => p.variable === variable && p.message === issue.message)) problems.push({ variable, message: issue.message });
      if (variable in left) {
        delete left[variable];
        any = true;
      }
    }
    return any;
  };
  for (let round = 0; round < ROUNDS; round++) {
    const result = schema.safeParse(left);
    if (result.success) return { config: result.data, problems, unchecked: {} };
    if (!setAside(result.error.issues)) break;
  }
  // What remains is a requirement on an unset variable: the variables read on their own, and a backend that cannot
  // be built without it left out (the deployment's map assumes the checks across variables passed).
  const read = variables.safeParse(left);
  if (!read.success) throw new Error(`unreadable configuration: ${read.error.message}`);
  const vars: z.output<typeof envSchema> = { ...read.data };
  const unchecked: Partial<Record<ProductName, string>> = {};
  for (const [product, name] of [
    ["premium", "PREMIUM_BACKEND"],
    ["gifts", "GIFTS_BACKEND"],
  ] as const) {
    if (vars[name] === "telegram" && vars.BOT_TOKEN === undefined) {
      unchecked[product] = "telegram";
      vars[name] = "protocol";
    }
  }
  if (vars.GIFTCARDS_BACKEND === "reloadly" && (vars.RELOADLY_CLIENT_ID === undefined || vars.RELOADLY_CLIENT_SECRET === undefined)) {
    unchecked.giftcards = "reloadly";
    vars.GIFTCARDS_BACKEND = "protocol";
  }
  return { config: deploymentOf(vars), problems, unchecked };
}
