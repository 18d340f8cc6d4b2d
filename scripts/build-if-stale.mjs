// Builds dist/ (`npm run build`) unless it is current, before `npm start`, `npm run admin` and `npm run migrate` run
// it and when `npm install` runs `prepare`: a stale build would run old code silently, and a full build on every
// start took 40 s. Current: no input is newer than the last build (tsc's build info, or the stamp written by the
// build). A checkout without sources (a release: dist/ only) builds nothing. Two starts at once build once: the
// second waits for the first's build, then finds dist/ current. Given a program (`build-if-stale.mjs
// dist/src/cli/admin.js <args>`), it then runs it in this same process, as if it were started alone: one Node start
// for `npm run admin`, not two.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const STAMPS = [join("dist", ".built"), join("dist", ".tsbuildinfo")];
const INPUTS = ["src", "web", "migrations", "package.json", "tsconfig.json", "tsconfig.build.json"];
const LOCK = join("dist", ".building");

/** The newest modification time under `path` (0 when it is missing). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function stale() {
  const built = Math.max(0, ...STAMPS.filter((file) => existsSync(file)).map((file) => statSync(file).mtimeMs));
  return built < Math.max(...INPUTS.map(newest));
}

/** Whether the process that took the lock is still running (a killed build leaves its lock behind). */
function holderAlive() {
  let pid;
  try {
    pid = Number(readFileSync(join(LOCK, "pid"), "utf8"));
  } catch {
    // Taken this instant, its pid not written yet; a taker that never wrote it died at once.
    try {
      return Date.now() - statSync(LOCK).mtimeMs < 10_000;
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === "EPERM"; // alive, another user's
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));
if (existsSync("src") && stale()) {
  mkdirSync("dist", { recursive: true });
  let said = false;
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      if (!holderAlive()) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (!said) console.error("dist/ is being built by another process: waiting for it");
      said = true;
      Atomics.wait(pause, 0, 0, 200);
    }
  }
  try {
    writeFileSync(join(LOCK, "pid"), String(process.pid));
    if (stale()) {
      // Said on stderr, and the build's output too: what the command prints on stdout stays its own.
      console.error("dist/ is older than the sources: building first (npm run build)");
      execFileSync("npm", ["run", "-s", "build"], { stdio: ["ignore", 2, 2] }); // it writes the stamp last
    }
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

const program = process.argv[2];
if (program) {
  // The program sees the arguments it would see started alone (argv[1] its own path).
  process.argv.splice(1, 1);
  process.argv[1] = resolve(program);
  await import(pathToFileURL(process.argv[1]).href);
}
