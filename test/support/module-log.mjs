// Loaded with `node --import`: writes the URL of every module the process loads, one a line, to the file MODULE_LOG
// names (what a command pays for at its start): ES modules as the loader's hook (on its own thread) sees them, and
// at exit every CommonJS module in require's cache, however it was loaded (a lazy require too).
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";
import { isMainThread } from "node:worker_threads";

export async function load(url, context, next) {
  appendFileSync(process.env.MODULE_LOG, `${url}\n`);
  return next(url, context);
}

if (isMainThread) {
  register(import.meta.url);
  const { cache } = createRequire(import.meta.url);
  process.on("exit", () =>
    appendFileSync(
      process.env.MODULE_LOG,
      Object.keys(cache)
        .map((path) => `${pathToFileURL(path).href}\n`)
        .join(""),
    ),
  );
}
