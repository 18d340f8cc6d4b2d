import type { Migration } from "kysely";
import * as initial from "./0001_initial.js";

/** Every migration, in order. A new file is added here too: an explicit list works under tsx, vitest and a build alike. */
export const migrations: Record<string, Migration> = {
  "0001_initial": initial,
};
