// Builds dist/ (`npm run build`) unless it is current, before `npm run admin` and `npm run migrate` run it: a
// stale build would run old code silently. Current: no input is newer than the last build (tsc's build info, or
// the stamp written here and by the tests' global setup). A checkout without sources (dist/ only) builds nothing.
// Given a program (`build-if-stale.mjs dist/src/cli/admin.js <args>`), it then runs it in this same process, as if
// it were started alone: one Node start for `npm run admin`, not two.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const STAMP = join("dist", ".built");
const STAMPS = [STAMP, join("dist", ".tsbuildinfo")];
const INPUTS = ["src", "web", "migrations", "package.json", "tsconfig.json", "tsconfig.build.json"];

/** The newest modification time under `path` (0 when it is missing). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const built = Math.max(0, ...STAMPS.filter((file) => existsSync(file)).map((file) => statSync(file).mtimeMs));
if (existsSync("src") && built < Math.max(...INPUTS.map(newest))) {
  // Said on stderr, and the build's output too: what the command prints on stdout stays its own.
  console.error("dist/ is older than the sources: building first (npm run build)");
  execFileSync("npm", ["run", "-s", "build"], { stdio: ["ignore", 2, 2] });
  writeFileSync(STAMP, new Date().toISOString());
}

const program = process.argv[2];
if (program) {
  // The program sees the arguments it would see started alone (argv[1] its own path).
  process.argv.splice(1, 1);
  process.argv[1] = resolve(program);
  await import(pathToFileURL(process.argv[1]).href);
}
