// Builds dist/ (`npm run build`) unless it is current, before `npm run admin` and `npm run migrate` run it: a
// stale build would run old code silently. Current: no input is newer than the last build (tsc's build info, or
// the stamp written here and by the tests' global setup). A checkout without sources (dist/ only) builds nothing.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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
