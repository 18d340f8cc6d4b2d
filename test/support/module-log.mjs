// Loaded with `node --import`: appends the URL of every module the process loads, one a line, to the file
// MODULE_LOG names (what a command pays for at its start). The hook runs on the loader's own thread.
import { appendFileSync } from "node:fs";
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

export async function load(url, context, next) {
  appendFileSync(process.env.MODULE_LOG, `${url}\n`);
  return next(url, context);
}

if (isMainThread) register(import.meta.url);
